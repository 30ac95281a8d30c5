/**
 * The server-rendered consent page. It names the app by its `client_name` (its client id when the
 * provider has none) and says in words what each standard scope lets it do. Everything interpolated is
 * HTML-escaped; the one inline script runs under a per-response CSP nonce; the page cannot be framed
 * (clickjacking a consent button is the classic attack on this page) and is never cached. Its errors
 * (an expired request, another browser's) are the shared error pages (http/error-page.ts).
 */

import { escapeHtml, pageResponse, renderPage } from "../http/page.ts";
import type { ConsentRequest } from "../idp/hydra.ts";

/** The OpenID Connect standard scopes, in the words a person reads on the consent page. */
export const SCOPE_WORDS: Readonly<Record<string, { title: string; detail: string }>> = {
  openid: {
    title: "Know who you are",
    detail: "Your account's identifier, so the app recognises you when you come back.",
  },
  offline_access: {
    title: "Stay signed in",
    detail: "Keep access while you are away from the app, until you sign out.",
  },
  profile: {
    title: "See your basic profile",
    detail: "Your name and details such as your picture, where your account has them.",
  },
  email: {
    title: "See your email address",
    detail: "And whether it has been verified.",
  },
};

function scopeItem(scope: string): string {
  const words = Object.hasOwn(SCOPE_WORDS, scope) ? SCOPE_WORDS[scope] : undefined;
  const code = `<code>${escapeHtml(scope)}</code>`;
  return words
    ? `<li><strong>${escapeHtml(words.title)}</strong><span class="muted">${escapeHtml(words.detail)}</span> <span class="small muted">${code}</span></li>`
    : `<li><strong>${code}</strong><span class="muted">A permission this app defines.</span></li>`;
}

/** `setCookie`: the consent nonce cookie when this load bound the request (same-origin fetches send it back). */
export function consentPage(request: ConsentRequest, isNewUser: boolean, setCookie?: string): Response {
  const clientId = request.client.client_id;
  const appName = request.client.client_name || clientId;
  const app = `<strong>${escapeHtml(appName)}</strong>`;
  const data = JSON.stringify({
    challenge: request.challenge,
    subject: request.subject,
    scope: request.requested_scope,
  }).replace(/</g, "\\u003c");
  const body = `<h1>Allow ${app} to use your account?</h1>
<p>You are signed in as <strong>${escapeHtml(request.subject)}</strong>.${isNewUser ? " Welcome! A starting credit comes with your first sign-in." : ""}</p>
<p>${app} asks to:</p>
<ul class="list">${request.requested_scope.map(scopeItem).join("") || `<li class="muted">Nothing beyond signing you in.</li>`}</ul>
<p><label><input type="checkbox" id="remember" checked> Remember this decision for 30 days</label></p>
<p class="actions"><button id="accept" class="primary" type="button">Allow</button><button id="deny" type="button">Deny</button></p>
<p id="error" class="error" role="alert"></p>`;
  const script = `
const req = ${data};
const error = document.getElementById("error");
async function decide(path, payload) {
  document.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    const res = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json", "x-service-csrf": "1" }, body: JSON.stringify(payload) });
    const json = await res.json();
    if (json.redirect_to) { location.assign(json.redirect_to); return; }
    error.textContent = json.error || "Something went wrong.";
  } catch { error.textContent = "The gateway could not be reached."; }
  document.querySelectorAll("button").forEach((b) => (b.disabled = false));
}
document.getElementById("accept").onclick = () => decide("/auth/consent/accept", { challenge: req.challenge, subject: req.subject, grant_scope: req.scope, remember: document.getElementById("remember").checked });
document.getElementById("deny").onclick = () => decide("/auth/consent/reject", { challenge: req.challenge });
`;
  const footer = `Client id <code>${escapeHtml(clientId)}</code>.`;
  const page = renderPage(
    { title: `${appName}: allow access?`, brand: "Session gateway", body, footer, script },
    { connect: true },
  );
  return pageResponse(page, 200, setCookie ? { "set-cookie": setCookie } : {});
}
