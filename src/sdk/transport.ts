/**
 * How the SDK talks to the gateway. Browser mode: `credentials: "include"` on every call (the session
 * lives in httpOnly cookies the page never sees) and `X-Service-Csrf: 1` on every state-changing call;
 * on a 401 it calls `POST /auth/refresh` once — one refresh shared by all calls that hit the 401 at the
 * same time, and none for a call sent before a refresh that has since succeeded — and retries once. Server mode: `Authorization: Bearer`, no cookies, no CSRF header.
 * Every failure surfaces as one `GatewayError` carrying the HTTP status and the API's `code`.
 */
import type { ClientOptions, FetchLike } from "./types.ts";

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
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

export class Transport {
  readonly base: string;
  private readonly fetchImpl: FetchLike;
  private refreshing: Promise<boolean> | undefined;
  /** Refreshes that succeeded so far: a 401 to a call sent before the latest one just retries. */
  private refreshes = 0;

  constructor(readonly options: ClientOptions) {
    this.base = options.gatewayUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  get isServer(): boolean {
    return "accessToken" in this.options;
  }

  get clientId(): string | undefined {
    return "clientId" in this.options ? this.options.clientId : undefined;
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

  send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const init: RequestInit = {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    if ("accessToken" in this.options) headers.authorization = `Bearer ${this.options.accessToken}`;
    else {
      init.credentials = "include";
      if (method !== "GET" && method !== "HEAD") headers["x-service-csrf"] = "1";
    }
    return this.fetchImpl(`${this.base}${path}`, init);
  }

  async read<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      throw new GatewayError(
        response.status,
        body?.code ?? "http_error",
        body?.error ?? `The gateway answered ${response.status}.`,
      );
    }
    return body as T;
  }
}
