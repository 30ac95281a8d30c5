/**
 * The HTML form of an error, for the routes a browser navigates to (`/auth/authorize`, the consent
 * page): the cause in words and a way forward (start again, try again, what to change). Everything
 * else, and these routes when the caller does not ask for HTML (`fetch`, curl, an SDK), keeps the
 * `{error, code}` JSON. The choice is the Accept header's: HTML only when `text/html` is listed with a
 * higher quality than `application/json` (a browser navigation lists `text/html` and not JSON;
 * `fetch` and curl accept any type through a wildcard, which counts for neither, so they get JSON).
 *
 * A URI the request carried is shown as text, never as a link: the page must not become a way to send
 * someone to an address of the attacker's choosing. Only registered URIs (from the apps file) are links.
 */
import { isLoopbackHost } from "../config.ts";
import type { Refusal, RefusalFacts } from "../domain/refusal.ts";
import { statusOf } from "./errors.ts";
import { escapeHtml, type RenderedPage, renderPage } from "./page.ts";

const BROWSER_FACING = new Set(["/auth/authorize", "/auth/consent"]);

/** The quality `accept` gives exactly `type` (wildcards count for nothing): 0 when not listed. */
export function acceptQuality(accept: string, type: string): number {
  let best = 0;
  for (const range of accept.split(",")) {
    const [name = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    if (name !== type) continue;
    const q = params.find((param) => param.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value)) best = Math.max(best, Math.min(1, Math.max(0, value)));
  }
  return best;
}

export function prefersHtml(request: Request): boolean {
  const accept = request.headers.get("accept");
  if (!accept) return false;
  const html = acceptQuality(accept, "text/html");
  return html > 0 && html > acceptQuality(accept, "application/json");
}

/** The HTML page for `error`, or undefined when the JSON form applies (see the header). */
export function errorPage(request: Request, error: Refusal, requestId?: string): RenderedPage | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const url = new URL(request.url);
  if (!BROWSER_FACING.has(url.pathname) || !prefersHtml(request)) return undefined;
  const text = explain(error, url);
  const status = statusOf(error);
  const code = `Error <code>${escapeHtml(error.code)}</code> (HTTP ${status})${
    requestId && status >= 500 ? `, request id <code>${escapeHtml(requestId)}</code>` : ""
  }.`;
  return renderPage({
    title: text.title,
    brand: "Session gateway",
    body: `<h1>${escapeHtml(text.title)}</h1>\n${text.body}\n<p class="actions">${text.actions}</p>`,
    footer: code,
  });
}

interface Explained {
  title: string;
  body: string;
  actions: string;
}

const p = (html: string) => `<p>${html}</p>`;
const c = (text: string) => `<code>${escapeHtml(shorten(text))}</code>`;
const link = (href: string, label: string, primary = false) =>
  `<a class="button${primary ? " primary" : ""}" href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
const home = (primary = false) => link("/", "Go to the gateway's home page", primary);
const startAgain = () => link("/", "Start again", true);

function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function explain(error: Refusal, url: URL): Explained {
  const again = link(url.pathname + url.search, "Try again", true);
  if (error.is("invalid_redirect_uri")) return redirectUriRefused(error.facts);
  const status = statusOf(error);
  switch (error.code) {
    case "issuer_not_configured":
      return {
        title: "Sign-in is not set up yet",
        body:
          p("This gateway has no identity provider configured, so it cannot sign anyone in.") +
          p(
            `If you run it: set ${c("OIDC_ISSUER")} to your identity provider's public URL (Hydra's, for example) and restart it. To try it on this machine, ${c("gateway dev")} starts a development provider with everything wired.`,
          ),
        actions: home(true),
      };
    case "unknown_client":
      return {
        title: "This app is not known to the gateway",
        body:
          p(escapeHtml(error.message)) +
          p(
            "The app that sent you here uses a client id that no app of this gateway declares. If you run it, add the client to the apps file.",
          ),
        actions: home(true),
      };
    case "invalid_request":
      return {
        title: "This sign-in link is not valid",
        body:
          p(escapeHtml(error.message)) +
          p("The app that sent you here built its sign-in link wrongly. Go back to it and try again."),
        actions: home(),
      };
    case "consent_not_found":
      return {
        title: "This sign-in request has expired",
        body:
          p(
            "Sign-in requests last a few minutes, and this one is over (or was never issued). Nothing was shared with the app.",
          ) + p("Go back to the app you were signing in to and sign in once more, or start again here."),
        actions: startAgain(),
      };
    case "consent_not_bound":
      return {
        title: "This request is open in another browser",
        body:
          p(
            "The consent for this sign-in was opened in another browser (or another browser profile), and only that one can decide.",
          ) + p("Decide there, or start again here."),
        actions: startAgain(),
      };
    case "not_supported_by_provider":
      return {
        title: "Your identity provider asks for consent itself",
        body: p(
          "This gateway's identity provider shows its own consent page, so there is nothing to decide here.",
        ),
        actions: home(true),
      };
    case "idp_unavailable":
      return {
        title: "The identity provider could not be reached",
        body: p("The gateway could not reach the identity provider just now. Try again in a moment."),
        actions: again + home(),
      };
    default:
      return {
        title: status >= 500 ? "Something went wrong on our side" : "This request was refused",
        body: p(escapeHtml(error.message)),
        actions: (status >= 500 ? again : "") + home(status < 500),
      };
  }
}

/** An unregistered redirect URI: what was received and, in development, what is registered. */
function redirectUriRefused(facts: RefusalFacts<"invalid_redirect_uri">): Explained {
  const received = facts.redirectUri;
  const registered = facts.registeredRedirectUris;
  let body = p(
    `The app asked to come back to ${received ? c(received) : "no address"} after sign-in, but that redirect URI is not registered for client ${c(facts.clientId)}. The gateway stops here rather than send you to an address it does not know.`,
  );
  let actions = "";
  if (registered === undefined) {
    body += p(
      "If you run this app: add this exact URI to the client's redirect URIs in the apps file, and at the identity provider. Otherwise, go back to the app and let its developers know.",
    );
    return { title: "This app's return address is not registered", body, actions: home() };
  }
  const alias = registered.find((uri) => sameButLoopbackHost(received, uri));
  if (alias) {
    const from = new URL(received);
    const to = new URL(alias);
    body += p(
      `You opened the app at ${c(from.host)}, but it is registered at ${c(to.host)}. Browsers treat those as different sites (their cookies are not shared), so open the app at the registered address and sign in from there.`,
    );
    actions = link(`${to.origin}/`, `Open ${to.origin}/`, true);
  }
  body += registered.length
    ? p("Registered for this client (listed because this gateway runs in development):") +
      `<ul class="list">${registered.map((uri) => `<li>${c(uri)}</li>`).join("")}</ul>`
    : p("This client has no registered redirect URI (listed because this gateway runs in development).");
  if (!alias) {
    const origins = [...new Set(registered.filter(isHttp).map((uri) => new URL(uri).origin))];
    actions = origins.map((origin, i) => link(`${origin}/`, `Open ${origin}/`, i === 0)).join("");
    body += p("Open the app at a registered address, or add this URI to the client in the apps file.");
  }
  // This gateway's home page at the unregistered host would be the same dead end: only the way out.
  return {
    title: "This app's return address is not registered",
    body,
    actions: alias ? actions : actions + home(),
  };
}

function isHttp(uri: string): boolean {
  return /^https?:\/\//i.test(uri) && URL.canParse(uri);
}

/** The same URI but for a loopback host written another way (localhost, 127.0.0.1, [::1]). */
function sameButLoopbackHost(received: string, registered: string): boolean {
  if (!isHttp(received) || !isHttp(registered)) return false;
  const a = new URL(received);
  const b = new URL(registered);
  const loopback = (url: URL) => isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ""));
  if (a.hostname === b.hostname || !loopback(a) || !loopback(b)) return false;
  a.hostname = b.hostname;
  return a.toString() === b.toString();
}
