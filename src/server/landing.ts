/**
 * `GET /` and `/landing.js`: a tiny page that says what the gateway is and whether you are signed in,
 * and signs you in or out through the gateway itself (Authorization Code + PKCE, client
 * `gateway-landing`, redirect URI `<origin>/`), offering only the one that applies. `gateway dev`
 * registers that client and links the demo app; on a real deployment register it at Hydra to use this
 * page. No inline script: the CSP allows only `/landing.js`.
 */
import { escapeHtml, pageResponse, renderPage } from "./http/page.ts";

export const LANDING_CLIENT_ID = "gateway-landing";

export interface LandingOptions {
  /** `gateway dev`: the demo app's URL, linked from the page. */
  demoUrl?: string;
}

export function landingPage(options: LandingOptions = {}): Response {
  const demo = options.demoUrl
    ? `<p class="small" id="demo">Development: the <a href="${escapeHtml(options.demoUrl)}">demo app</a> at <code>${escapeHtml(options.demoUrl)}</code> signs in through this gateway from another origin, with the client SDK.</p>`
    : "";
  const body = `<h1>Sign-in and membership for your apps</h1>
<p>This gateway signs people in for its apps through an OpenID Connect provider (Ory Hydra) and keeps
their tokens in a sealed, httpOnly cookie: an app's page only learns whether you are signed in. Apps
manage resources and who belongs to them through its API.</p>
<p id="state" aria-live="polite">Checking your session…</p>
<p class="actions"><button id="signin" class="primary" type="button" hidden>Sign in</button><button id="signout" type="button" hidden>Sign out</button></p>
${demo}`;
  const page = renderPage(
    {
      title: "Session gateway",
      brand: "Session gateway",
      body,
      footer: `The sign-in on this page uses the client <code>${LANDING_CLIENT_ID}</code>.`,
      scriptSrc: "/landing.js",
    },
    { connect: true },
  );
  return pageResponse(page);
}

const script = `
const clientId = ${JSON.stringify(LANDING_CLIENT_ID)};
const redirectUri = location.origin + "/";
const csrf = { "content-type": "application/json", "x-service-csrf": "1" };
const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const random = () => b64url(crypto.getRandomValues(new Uint8Array(32)));

async function signIn() {
  const verifier = random(), state = random(), nonce = random();
  sessionStorage.setItem("landing.pkce", JSON.stringify({ verifier, state, nonce }));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const q = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri,
    scope: "openid offline_access", state, nonce, code_challenge: challenge, code_challenge_method: "S256" });
  location.assign("/auth/authorize?" + q);
}

async function callback() {
  const params = new URLSearchParams(location.search);
  const code = params.get("code");
  if (!code) return;
  const saved = JSON.parse(sessionStorage.getItem("landing.pkce") || "{}");
  sessionStorage.removeItem("landing.pkce");
  history.replaceState(null, "", "/");
  if (params.get("state") !== saved.state) throw new Error("state mismatch");
  const res = await fetch("/auth/token", { method: "POST", headers: csrf,
    body: JSON.stringify({ code, code_verifier: saved.verifier, redirect_uri: redirectUri, client_id: clientId, nonce: saved.nonce }) });
  if (!res.ok) throw new Error((await res.json()).error);
}

async function show() {
  const s = await (await fetch("/auth/session")).json();
  document.getElementById("state").textContent = s.authenticated ? "Signed in as " + s.user_id : "Not signed in";
  // One of the two, never both: the other is hidden.
  document.getElementById("signin").hidden = s.authenticated;
  document.getElementById("signout").hidden = !s.authenticated;
}

document.getElementById("signin").onclick = signIn;
document.getElementById("signout").onclick = async () => {
  await fetch("/auth/logout", { method: "POST", headers: csrf, body: "{}" });
  await show();
};
callback().then(show, async (e) => {
  await show();
  document.getElementById("state").textContent = "Sign-in failed: " + e.message;
});
`;

export function landingScript(): Response {
  return new Response(script, {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" },
  });
}
