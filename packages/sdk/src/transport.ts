/**
 * How the SDK talks to the gateway. Browser mode: `credentials: "include"` on every call (the session
 * lives in httpOnly cookies the page never sees) and `X-Service-Csrf: 1` on every state-changing call;
 * on a 401 it calls `POST /auth/refresh` once (one refresh shared by all calls that hit the 401 at the
 * same time, and none for a call sent before a refresh that has since succeeded) and retries once.
 * Server mode: `Authorization: Bearer`, no cookies, no CSRF header. Every failure, a refusal, an
 * unreachable gateway or a call past its time bound, is one `GatewayError` with a `code`.
 */
import type { ApiErrorCode } from "./codes.gen.ts";
import type { ClientOptions, FetchInit, FetchLike, FetchResponse } from "./types.ts";
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

export class Transport {
  readonly base: string;
  private readonly fetchImpl: FetchLike;
  private refreshing: Promise<boolean> | undefined;
  /** Refreshes that succeeded so far: a 401 to a call sent before the latest one just retries. */
  private refreshes = 0;

  constructor(readonly options: ClientOptions) {
    this.base = options.gatewayUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? ((url, init) => web.fetch(url, init) as Promise<FetchResponse>);
  }

  get isServer(): boolean {
    return typeof this.options.accessToken === "string";
  }

  get clientId(): string | undefined {
    return this.options.clientId;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const seen = this.refreshes;
    let response = await this.send(method, path, options.body);
    if (response.status === 401 && !options.noRetry && !this.isServer) {
      // A refresh that finished after this call was sent already gave it a fresh cookie.
      const fresh = this.refreshes !== seen || (await this.refreshOnce());
      if (fresh) {
        await response.body?.cancel();
        response = await this.send(method, path, options.body);
      }
    }
    return this.read<T>(response);
  }

  /** One refresh for every call that saw a 401 at the same time. Resolves to whether it worked. */
  refreshOnce(): Promise<boolean> {
    this.refreshing ??= this.send("POST", "/auth/refresh", { client_id: this.clientId })
      .then(async (response) => {
        await response.body?.cancel();
        if (response.ok) this.refreshes++;
        return response.ok;
      })
      .catch(() => false)
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
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
    if (this.options.accessToken !== undefined) headers.authorization = `Bearer ${this.options.accessToken}`;
    else {
      init.credentials = "include";
      if (method !== "GET" && method !== "HEAD") headers["x-service-csrf"] = "1";
    }
    try {
      return await this.fetchImpl(`${this.base}${path}`, init);
    } catch (error) {
      const name = (error as { name?: unknown })?.name;
      if (name === "TimeoutError" || name === "AbortError")
        throw new GatewayError(0, "timeout", `The gateway did not answer within ${timeoutMs} ms.`);
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
      );
    }
    return body as T;
  }
}
