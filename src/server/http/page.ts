/**
 * The one look of every HTML page a person sees on the way through a sign-in: the gateway's landing,
 * consent and error pages, and the development provider's login page. One stylesheet, sent inline
 * under each page's CSP (a nonce, never 'unsafe-inline'), so no page loads anything but its own
 * script. Pages cannot be framed (a consent or sign-out button must not be clickjacked), are never
 * cached, and send no Referer (their URLs carry challenges and codes).
 */
import { randomId } from "../lib/crypto.ts";

export const PAGE_STYLE = `:root{color-scheme:light;--ink:#1d2433;--muted:#5b6475;--line:#d9dee7;--accent:#1f5fd6;--bg:#f3f5f9;--bad:#b42318;--code:#eef1f6}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:36rem;margin:3rem auto;padding:0 1rem}
.brand{margin:0 0 .75rem;font-size:.8rem;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:var(--muted)}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:1.5rem 1.75rem;box-shadow:0 1px 3px rgb(16 24 40/.06)}
h1{margin:0 0 .75rem;font-size:1.45rem;line-height:1.25}
p{margin:.6rem 0}
a{color:var(--accent)}
code{font:.88em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:.1em .35em;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.small{font-size:.85rem}
.error{color:var(--bad)}
.error:empty{display:none}
.warning{margin:0 0 1rem;padding:.6rem .8rem;background:#fff4cc;border:1px solid #d9a400;border-radius:6px}
.actions{margin-top:1.25rem}
button,.button{display:inline-block;margin:.25rem .5rem .25rem 0;padding:.5rem 1.2rem;font:inherit;font-weight:600;color:var(--ink);background:#fff;border:1px solid #b8c0cc;border-radius:6px;text-decoration:none;cursor:pointer}
button.primary,.button.primary{color:#fff;background:var(--accent);border-color:var(--accent)}
button:disabled{opacity:.6;cursor:default}
input[type=text]{font:inherit;padding:.45rem .6rem;border:1px solid #b8c0cc;border-radius:6px;width:100%;margin:.25rem 0 .5rem}
ul.list{list-style:none;margin:.5rem 0;padding:0}
ul.list li{padding:.55rem 0;border-top:1px solid var(--line)}
ul.list li:last-child{border-bottom:1px solid var(--line)}
ul.list strong{display:block}
footer{margin-top:1rem;font-size:.8rem;color:var(--muted)}
[hidden]{display:none!important}`;

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

export interface PageOptions {
  title: string;
  /** Who is speaking, shown above the card ("Session gateway"). */
  brand: string;
  /** The card's HTML (already escaped where it interpolates). */
  body: string;
  /** HTML under the card (small print). */
  footer?: string;
  /** An inline script, run under the page's nonce. */
  script?: string;
  /** A same-origin script file (`/landing.js`), for pages whose CSP allows `'self'` scripts. */
  scriptSrc?: string;
}

export interface RenderedPage {
  html: string;
  headers: Record<string, string>;
}

/** The page and its headers: CSP with a fresh nonce; `connect` allows same-origin `fetch`. */
export function renderPage(options: PageOptions, csp: { connect?: boolean; formAction?: boolean } = {}) {
  const nonce = randomId();
  const scripts = [
    options.scriptSrc ? `<script type="module" src="${escapeHtml(options.scriptSrc)}"></script>` : "",
    options.script ? `<script nonce="${nonce}">${options.script}</script>` : "",
  ].join("");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)}</title><style nonce="${nonce}">${PAGE_STYLE}</style></head>
<body><main><p class="brand">${escapeHtml(options.brand)}</p><div class="card">
${options.body}
</div>${options.footer ? `<footer>${options.footer}</footer>` : ""}</main>${scripts}</body></html>`;
  const scriptSrc = [options.scriptSrc ? "'self'" : "", options.script ? `'nonce-${nonce}'` : ""]
    .filter(Boolean)
    .join(" ");
  const policy = [
    "default-src 'none'",
    scriptSrc ? `script-src ${scriptSrc}` : "",
    `style-src 'nonce-${nonce}'`,
    csp.connect ? "connect-src 'self'" : "",
    // form-action is left out where a form posts and is redirected onwards (Chromium checks redirects).
    csp.formAction === false ? "" : "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ]
    .filter(Boolean)
    .join("; ");
  const headers = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": policy,
  };
  return { html, headers } satisfies RenderedPage;
}

export function pageResponse(page: RenderedPage, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(page.html, { status, headers: { ...page.headers, ...extra } });
}
