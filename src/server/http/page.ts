/**
 * The one look of every HTML page a person sees on the way through a sign-in: the gateway's landing,
 * consent and error pages, and the development provider's login page. One stylesheet, sent inline
 * under each page's CSP (a nonce, never 'unsafe-inline'), so no page loads anything but its own
 * script. Pages cannot be framed (a consent or sign-out button must not be clickjacked), are never
 * cached, and send no Referer (their URLs carry challenges and codes).
 */
import { randomId } from "../lib/crypto.ts";
/** The stylesheet, one file: the demo app (served from its own origin) links the same one. */
import PAGE_STYLE from "./page.css" with { type: "text" };

export { PAGE_STYLE };

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
