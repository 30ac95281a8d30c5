/**
 * How the SDK talks to the gateway. Browser mode: `credentials: "include"` on every call (the session
 * lives in httpOnly cookies the page never sees) and `X-Service-Csrf: 1` on every state-changing call;
 * on a 401 it calls `POST /auth/refresh` once (one refresh shared by all calls that hit the 401 at the
 * same time, and none for a call sent before a refresh that has since succeeded) and retries once.
 * A refresh the gateway refuses ends the session: the call fails with the refusal's words and `reason`,
 * and `auth.onChange` listeners hear it once. Token mode (`accessToken`): `Authorization: Bearer`, no
 * cookies, no CSRF header, no refresh. Cookie mode (`createServerClient`): the browser mode's calls from
 * an app server, the gateway's cookie forwarded from the incoming request by a `CookieJar`. Every
 * failure, a refusal, an unreachable gateway or a call past its time bound, is one `GatewayError`; a
 * browser call the gateway hid from the page because the page's origin is not registered is reported
 * as `origin_not_allowed` naming that origin (origin-probe.ts), not as an unreachable gateway.
 */
import { AuthState } from "./auth-state.ts";
import type { ApiErrorCode, SessionEndReason } from "./codes.gen.ts";
import type { CookieJar } from "./cookie-jar.ts";
import { originRefusalMessage, refusedOrigin } from "./origin-probe.ts";
import type { FetchInit, FetchLike, FetchResponse, TransportOptions } from "./types.ts";
import { web } from "./web.ts";

/** The codes the SDK itself gives: the call never got an answer, or sign-in could not finish. */
export type ClientErrorCode =
  /** The gateway could not be reached (refused connection, DNS, TLS, a reset). */
  | "network_error"
  /** No answer within `timeoutMs`. */
  | "timeout"
  /** An answer that is not the gateway's `{error, code}` (a proxy's error page). */
  | "http_error"
  /** A server client called a browser-only method (only without TypeScript). */
  | "browser_only"
  /** The redirect back does not belong to a sign-in this page started. */
  | "state_mismatch"
  /** The redirect back carries no code. */
  | "missing_code"
  /** The provider refused the sign-in (the user declined, or the request was invalid). */
  | "sign_in_refused";

export type GatewayErrorCode = ApiErrorCode | ClientErrorCode;

export class GatewayError extends Error {
  constructor(
    /** The HTTP status; 0 when no answer came (network_error, timeout). */
    readonly status: number,
    readonly code: GatewayErrorCode,
    message: string,
    /** With `unauthenticated` after a refused refresh: why the session ended. */
    readonly reason?: SessionEndReason,
  ) {
    super(message);
    this.name = "GatewayError";
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Skip the refresh-and-retry (used by the auth endpoints themselves). */
  noRetry?: boolean;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** A refresh's outcome: worked, or refused with the gateway's words and reason (the session ended). */
type Refreshed = { ok: true; refused?: undefined } | { ok: false; refused?: GatewayError };

export class Transport {
  readonly base: string;
  readonly mode: "browser" | "token" | "cookie";
  readonly state = new AuthState();
  private readonly fetchImpl: FetchLike;
  private refreshing: Promise<Refreshed> | undefined;
  /** Refreshes the gateway answered (rotated or refused) so far, and the latest such answer. */
  private answered = 0;
  private latest: Refreshed | undefined;

  constructor(
    readonly options: TransportOptions,
    private readonly jar?: CookieJar,
  ) {
    this.base = options.gatewayUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? ((url, init) => web.fetch(url, init) as Promise<FetchResponse>);
    this.mode = typeof options.accessToken === "string" ? "token" : jar ? "cookie" : "browser";
  }

  get clientId(): string | undefined {
    return this.options.clientId;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const seen = this.answered;
    let response = await this.send(method, path, options.body);
    if (response.status === 401 && !options.noRetry && this.mode !== "token") {
      // A refresh answered after this call was sent already says what the call should do: retry with
      // the fresh cookie, or fail as that refusal did (the session ended meanwhile).
      const refreshed = this.answered !== seen && this.latest ? this.latest : await this.refreshOnce();
      if (refreshed.ok || refreshed.refused) await response.body?.cancel();
      if (refreshed.refused) throw refreshed.refused;
      if (refreshed.ok) response = await this.send(method, path, options.body);
    }
    return this.read<T>(response);
  }

  /** One refresh for every call that saw a 401 at the same time. */
  refreshOnce(): Promise<Refreshed> {
    this.refreshing ??= this.send("POST", "/auth/refresh", { client_id: this.clientId })
      .then(async (response): Promise<Refreshed> => {
        if (response.ok) {
          await response.body?.cancel();
          return this.answer({ ok: true });
        }
        const refused = await this.read(response).catch((error: unknown) => error);
        // A provider or network failure says nothing about the session: the next 401 tries again. A
        // deleted account (403 account_deleted) ends it like a 401.
        const ended =
          refused instanceof GatewayError && (refused.status === 401 || refused.code === "account_deleted");
        if (!ended) return { ok: false };
        this.state.ended(refused.reason ?? "expired");
        return this.answer({ ok: false, refused });
      })
      .catch(() => ({ ok: false }))
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private answer(outcome: Refreshed): Refreshed {
    this.answered++;
    this.latest = outcome;
    return outcome;
  }

  /** One call, bounded by `timeoutMs`; a call that gets no answer rejects with a GatewayError. */
  async send(method: string, path: string, body?: unknown): Promise<FetchResponse> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const init: FetchInit = {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: web.AbortSignal.timeout(timeoutMs),
    };
    if (this.mode === "token") headers.authorization = `Bearer ${this.options.accessToken}`;
    else {
      if (this.jar) {
        const cookie = this.jar.header();
        if (cookie) headers.cookie = cookie;
      } else init.credentials = "include";
      if (method !== "GET" && method !== "HEAD") headers["x-service-csrf"] = "1";
    }
    try {
      const response = await this.fetchImpl(`${this.base}${path}`, init);
      this.jar?.take(setCookiesOf(response));
      return response;
    } catch (error) {
      const name = (error as { name?: unknown })?.name;
      if (name === "TimeoutError" || name === "AbortError")
        throw new GatewayError(0, "timeout", `The gateway did not answer within ${timeoutMs} ms.`);
      const origin =
        init.credentials === "include"
          ? await refusedOrigin(this.fetchImpl, this.base, this.clientId, timeoutMs)
          : undefined;
      if (origin)
        throw new GatewayError(
          403,
          "origin_not_allowed",
          originRefusalMessage(this.base, origin, this.clientId),
        );
      throw new GatewayError(0, "network_error", `The gateway at ${this.base} could not be reached.`);
    }
  }

  async read<T>(response: FetchResponse): Promise<T> {
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new GatewayError(0, "network_error", "The gateway's answer was cut off.");
    }
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const known = typeof body?.code === "string" && typeof body?.error === "string";
      throw new GatewayError(
        response.status,
        known ? body.code : "http_error",
        known ? body.error : `The gateway answered ${response.status}.`,
        known && typeof body.reason === "string" ? body.reason : undefined,
      );
    }
    return body as T;
  }
}

/** Each Set-Cookie of an answer (`getSetCookie` where the runtime has it: Node 20+, Bun, Deno, browsers). */
function setCookiesOf(response: FetchResponse): string[] {
  if (typeof response.headers.getSetCookie === "function") return response.headers.getSetCookie();
  const joined = response.headers.get("set-cookie");
  return joined ? joined.split(/,(?=\s*[^;=\s]+=)/) : [];
}
