/**
 * The server-rendered consent page. Everything interpolated is HTML-escaped; the one inline script
 * runs under a per-response CSP nonce; the page cannot be framed (clickjacking a consent button is
 * the classic attack on this page) and is never cached.
 */
import type { ConsentRequest } from "../idp/hydra.ts";
import { randomId } from "../lib/crypto.ts";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

function html(status: number, title: string, body: string, nonce: string, setCookie?: string): Response {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font:inherit;padding:.5rem 1.25rem;margin-right:.5rem;border-radius:6px;border:1px solid #888;cursor:pointer}
#accept{background:#1f6feb;color:#fff;border-color:#1f6feb}ul{padding-left:1.25rem}.muted{color:#666}#error{color:#b00}</style></head>
<body>${body}</body></html>`;
  return new Response(page, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
      ...(setCookie ? { "set-cookie": setCookie } : {}),
    },
  });
}

export function consentErrorPage(status: number, message: string): Response {
  return html(status, "Consent", `<h1>Consent</h1><p id="error">${escapeHtml(message)}</p>`, randomId());
}

/** `setCookie`: the consent nonce cookie when this load bound the request (same-origin fetches send it back). */
export function consentPage(request: ConsentRequest, isNewUser: boolean, setCookie?: string): Response {
  const nonce = randomId();
  const appName = request.client.client_name || request.client.client_id;
  const scopes = request.requested_scope
    .map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`)
    .join("");
  const data = JSON.stringify({
    challenge: request.challenge,
    subject: request.subject,
    scope: request.requested_scope,
  }).replace(/</g, "\\u003c");
  const body = `<h1>${escapeHtml(appName)} wants access</h1>
<p>Signed in as <strong>${escapeHtml(request.subject)}</strong>.${isNewUser ? " Welcome! A starting credit comes with your first sign-in." : ""}</p>
<p>It asks for:</p><ul>${scopes || "<li class=muted>no scopes</li>"}</ul>
<p><label><input type="checkbox" id="remember" checked> Remember this decision</label></p>
<p><button id="accept" type="button">Allow</button><button id="deny" type="button">Deny</button></p>
<p id="error" role="alert"></p>
<script nonce="${nonce}">
const req = ${data};
async function decide(path, payload) {
  document.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    const res = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json", "x-service-csrf": "1" }, body: JSON.stringify(payload) });
    const json = await res.json();
    if (json.redirect_to) { location.assign(json.redirect_to); return; }
    document.getElementById("error").textContent = json.error || "Something went wrong.";
  } catch { document.getElementById("error").textContent = "The gateway could not be reached."; }
  document.querySelectorAll("button").forEach((b) => (b.disabled = false));
}
document.getElementById("accept").onclick = () => decide("/auth/consent/accept", { challenge: req.challenge, subject: req.subject, grant_scope: req.scope, remember: document.getElementById("remember").checked });
document.getElementById("deny").onclick = () => decide("/auth/consent/reject", { challenge: req.challenge });
</script>`;
  return html(200, `${appName}: consent`, body, nonce, setCookie);
}
