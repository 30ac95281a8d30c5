// Ory Kratos public self-service flow API, just enough for a gateway that proxies
// flow fetches with the browser's cookies (Kratos spec/api.json; login/handler.go;
// x/nosurfx): browser flow creation sets a CSRF cookie `csrf_token_<sha256 hex of
// the public URL>`; GET …/flows?id= answers 200 / 404 unknown / 403
// security_csrf_violation (cookie missing or wrong) / 410 self_service_flow_expired,
// checked in that order; GET /self-service/errors?id= needs no cookie (`stub:500`).
// No identities, passwords or sessions: submitting a flow is not implemented. The admin API's
// DELETE /admin/identities/{id} answers 204 the first time for an id, then Kratos' 404; the deleted
// ids are kept for tests.
import { json, redirect, statusText } from "./http.ts";
import type { DevIdpState } from "./state.ts";

export const FLOW_TYPES = ["login", "registration", "recovery", "settings", "verification"] as const;
type FlowType = (typeof FLOW_TYPES)[number];

interface Flow {
  id: string;
  type: FlowType;
  csrf: string;
  issuedAt: Date;
  expiresAt: Date;
  requestUrl: string;
  returnTo?: string;
  loginChallenge?: string;
}

const FLOW_LIFETIME_MS = 60 * 60 * 1000;

export function kratosCsrfCookieName(kratosUrl: string): string {
  return `csrf_token_${new Bun.CryptoHasher("sha256").update(kratosUrl).digest("hex")}`;
}

function kratosError(status: number, fields: Record<string, unknown>): Response {
  return json({ error: { code: status, status: statusText(status), ...fields } }, status);
}

function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function node(group: string, attributes: Record<string, unknown>, label?: string) {
  return {
    type: "input",
    group,
    attributes: { disabled: false, node_type: "input", ...attributes },
    messages: [],
    meta: label ? { label: { id: 1070000, text: label, type: "info" } } : {},
  };
}

export class KratosEmulator {
  private readonly flows = new Map<string, Flow>();
  readonly cookieName: string;
  readonly deletedIdentities: string[] = [];

  constructor(
    private readonly kratosUrl: string,
    private readonly state: DevIdpState,
  ) {
    this.cookieName = kratosCsrfCookieName(kratosUrl);
  }

  deleteIdentity(id: string): Response {
    this.state.count("kratos:delete-identity");
    if (this.deletedIdentities.includes(id))
      return kratosError(404, { message: "Unable to locate the resource", reason: "" });
    this.deletedIdentities.push(id);
    return new Response(null, { status: 204 });
  }

  expire(id: string): void {
    const flow = this.flows.get(id);
    if (flow) flow.expiresAt = new Date(Date.now() - 1000);
  }

  async handle(request: Request, url: URL): Promise<Response | undefined> {
    if (request.method !== "GET") return undefined;
    const parts = url.pathname.split("/").filter(Boolean); // ["self-service", type, "browser"|"flows"]
    if (parts[0] === "self-service" && parts[1] === "errors" && parts.length === 2) return this.errors(url);
    if (parts[0] === "ui" && parts.length === 2) return this.uiPage(url);
    const type = FLOW_TYPES.find((t) => t === parts[1]);
    if (parts[0] !== "self-service" || !type || parts.length !== 3) return undefined;
    if (parts[2] === "browser") return this.createBrowserFlow(request, url, type);
    if (parts[2] === "flows") return this.fetchFlow(request, url, type);
    return undefined;
  }

  private createBrowserFlow(request: Request, url: URL, type: FlowType): Response {
    this.state.count("kratos:browser");
    const existing = readCookie(request.headers.get("cookie"), this.cookieName);
    const csrf = existing && existing.length >= 32 ? existing : crypto.randomUUID().replaceAll("-", "");
    const now = new Date();
    const flow: Flow = {
      id: crypto.randomUUID(),
      type,
      csrf,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + FLOW_LIFETIME_MS),
      requestUrl: url.toString(),
      returnTo: url.searchParams.get("return_to") ?? undefined,
      loginChallenge: url.searchParams.get("login_challenge") ?? undefined,
    };
    this.flows.set(flow.id, flow);
    const cookie = `${this.cookieName}=${csrf}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax`;
    if ((request.headers.get("accept") ?? "").includes("application/json")) {
      return json(this.render(flow), 200, { "set-cookie": cookie });
    }
    return redirect(`${this.kratosUrl}/ui/${type}?flow=${flow.id}`, 303, { "set-cookie": cookie });
  }

  private fetchFlow(request: Request, url: URL, type: FlowType): Response {
    this.state.count("kratos:flow");
    const flow = this.flows.get(url.searchParams.get("id") ?? "");
    if (!flow || flow.type !== type) {
      return kratosError(404, {
        message: "Unable to locate the resource",
        reason: `The ${type} flow could not be found.`,
      });
    }
    if (readCookie(request.headers.get("cookie"), this.cookieName) !== flow.csrf) {
      return kratosError(403, {
        id: "security_csrf_violation",
        reason:
          "Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.",
        message: "the request was rejected to protect you from Cross-Site-Request-Forgery",
        details: {
          reject_reason: "The HTTP Cookie Header was set and a CSRF token was sent but they do not match.",
        },
      });
    }
    if (flow.expiresAt.getTime() <= Date.now()) {
      const since = Math.round((Date.now() - flow.expiresAt.getTime()) / 1000);
      const restart = new URL(`${this.kratosUrl}/self-service/${type}/browser`);
      if (flow.returnTo) restart.searchParams.set("return_to", flow.returnTo);
      return kratosError(410, {
        id: "self_service_flow_expired",
        reason: `The self-service flow expired ${since}s ago, initialize a new one.`,
        message: "self-service flow expired",
        details: {
          redirect_to: restart.toString(),
          return_to: flow.returnTo ?? "",
          expired_at: flow.expiresAt.toISOString(),
          since: since * 1e9,
        },
      });
    }
    return json(this.render(flow));
  }

  private render(flow: Flow): Record<string, unknown> {
    const nodes = [node("default", { name: "csrf_token", type: "hidden", value: flow.csrf, required: true })];
    if (flow.type === "login") {
      nodes.push(node("default", { name: "identifier", type: "text", value: "", required: true }, "ID"));
      nodes.push(node("password", { name: "password", type: "password", required: true }, "Password"));
    } else if (flow.type === "recovery" || flow.type === "verification") {
      nodes.push(node("code", { name: "email", type: "email", required: true }, "Email"));
    } else {
      nodes.push(node("password", { name: "password", type: "password", required: true }, "Password"));
    }
    nodes.push(node("password", { name: "method", type: "submit", value: "password" }, "Submit"));
    const stamp = flow.issuedAt.toISOString();
    return {
      id: flow.id,
      type: "browser",
      expires_at: flow.expiresAt.toISOString(),
      issued_at: stamp,
      created_at: stamp,
      updated_at: stamp,
      request_url: flow.requestUrl,
      ...(flow.returnTo ? { return_to: flow.returnTo } : {}),
      ...(flow.loginChallenge ? { oauth2_login_challenge: flow.loginChallenge } : {}),
      ...(flow.type === "login" ? { refresh: false, requested_aal: "aal1" } : {}),
      state: flow.type === "settings" ? "show_form" : "choose_method",
      ui: {
        action: `${this.kratosUrl}/self-service/${flow.type}?flow=${flow.id}`,
        method: "POST",
        nodes,
      },
    };
  }

  private errors(url: URL): Response {
    this.state.count("kratos:errors");
    const id = url.searchParams.get("id") ?? "";
    const stub = /^stub:(\d{3})$/.exec(id);
    const code = stub ? Number(stub[1]) : 0;
    if (!stub || code < 400 || code > 599) {
      return kratosError(404, {
        message: "Unable to locate the resource",
        reason: "The error could not be found.",
      });
    }
    const now = new Date().toISOString();
    return json({
      id,
      error: {
        code,
        status: statusText(code),
        reason: "This is a stub error.",
        message: "This is a stub error.",
      },
      created_at: now,
      updated_at: now,
    });
  }

  private uiPage(url: URL): Response {
    const flow = (url.searchParams.get("flow") ?? "").replace(/[^A-Za-z0-9-]/g, "");
    const html = `<!doctype html><meta charset="utf-8"><title>Dev Kratos UI</title><p><strong>Development identity provider — not for production.</strong> Kratos ${FLOW_TYPES.find((t) => url.pathname === `/ui/${t}`) ?? "unknown"} flow <code>${flow}</code> (no UI; fetch it with GET /self-service/…/flows?id=).</p>`;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  }
}
