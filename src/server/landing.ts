/**
 * `GET /` and `/landing.js`: a tiny page that says whether you are signed in and signs you in through
 * the gateway itself (Authorization Code + PKCE, client `gateway-landing`, redirect URI `<origin>/`).
 * `gateway dev` registers that client; on a real deployment register it at Hydra to use this page.
 */
export const LANDING_CLIENT_ID = "gateway-landing";

export function landingPage(): Response {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Session gateway</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head><body>
<h1>Session gateway</h1><p id="state">Checking your session…</p>
<p><button id="signin" type="button">Sign in</button> <button id="signout" type="button">Sign out</button></p>
<script type="module" src="/landing.js"></script></body></html>`;
  return new Response(page, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The sign-in and sign-out buttons must not be clickjacked from a frame.
      "x-frame-options": "DENY",
      "content-security-policy":
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    },
  });
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
}

document.getElementById("signin").onclick = signIn;
document.getElementById("signout").onclick = async () => {
  await fetch("/auth/logout", { method: "POST", headers: csrf, body: "{}" });
  await show();
};
callback().catch((e) => { document.getElementById("state").textContent = "Sign-in failed: " + e.message; }).then(show);
`;

export function landingScript(): Response {
  return new Response(script, {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" },
  });
}
