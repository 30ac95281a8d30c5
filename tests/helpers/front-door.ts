/**
 * The front-door scenario's means (tests/api/front-door-differential.test.ts): a gateway over its real
 * listeners (the stack), every answer recorded (front-door-record.ts), and the few calls a scenario
 * step needs: `call` (fetch to the public or admin listener), `raw` (a request written by hand on a
 * socket: odd Host headers, absolute-form targets, oversized headers), `stream` (the first events of
 * an event stream). Credentials come from the real sign-in walk only (cookies and provider tokens), so
 * the scenario asks nothing of the gateway's insides.
 */

import { Recorder } from "./front-door-record.ts";
import { type RawAnswer, rawExchange } from "./raw-http.ts";
import { type Stack, tokensOf } from "./stack.ts";

export const ADMIN = { authorization: "Bearer test-admin-token" };

export interface Credentials {
  cookie: { cookie: string };
  bearer: { authorization: string };
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** A string as it is; anything else as JSON. */
  body?: unknown;
  /** To the admin listener. */
  admin?: boolean;
}

export interface Answer {
  status: number;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export class Door {
  readonly rec: Recorder;
  readonly users: Record<string, Credentials> = {};

  constructor(readonly stack: Stack) {
    const port = (url: string) => new URL(url).port;
    this.rec = new Recorder({
      public: port(stack.url),
      admin: port(stack.adminUrl),
      idp: port(stack.idp.issuer),
      idpAdmin: port(stack.idp.adminUrl),
      kratos: port(stack.idp.kratosUrl),
    });
  }

  /** Signs `user` in (the whole browser walk) and keeps their cookie and provider access token. */
  async signIn(user: string, clientId?: string): Promise<Credentials> {
    const { browser, at } = await tokensOf(this.stack, user, clientId);
    this.rec.secret(at);
    const credentials = {
      cookie: { cookie: browser.cookieHeader(this.stack.url) },
      bearer: { authorization: `Bearer ${at}` },
    };
    this.users[user] = credentials;
    return credentials;
  }

  /** One request over the listener's socket, recorded; redirects are not followed. */
  async call(label: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const base = options.admin ? this.stack.adminUrl : this.stack.url;
    const { body } = options;
    const response = await fetch(`${base}${path}`, {
      method,
      headers: options.headers,
      body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
      redirect: "manual",
    });
    return this.record(label, `${method} ${options.admin ? "admin" : ""}${path}`, response, options.headers);
  }

  /** Records an answer the caller got itself (a browser's fetch); `headers` are what it sent. */
  async record(
    label: string,
    request: string,
    response: Response,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const names = Object.keys(headers).sort().join(",");
    const text = await this.rec.response(
      label,
      `${request}${names ? ` [${names}]` : ""}`,
      response,
      headers["x-request-id"],
    );
    return {
      status: response.status,
      text,
      json: <T>() => JSON.parse(text) as T,
    };
  }

  /** Writes `head` (request line and headers, CRLF-separated, without the blank line) and `body` raw. */
  async raw(label: string, head: string, body = "", admin = false): Promise<RawAnswer> {
    const answer = await rawExchange(admin ? this.stack.adminUrl : this.stack.url, {
      send: (write) => void write(`${head}\r\nconnection: close\r\n\r\n${body}`),
    });
    this.rec.raw(label, head.replaceAll("\r\n", " | ").slice(0, 200), answer);
    return answer;
  }

  /**
   * Opens the admin event stream, reads until its first comment, runs `during`, and reads until
   * `events` event lines have come; then hangs up. Records the headers and what was read.
   */
  async stream(label: string, headers: Record<string, string>, during: () => Promise<unknown>, events = 1) {
    const abort = new AbortController();
    const response = await fetch(`${this.stack.adminUrl}/admin/v1/events`, {
      headers: { ...ADMIN, ...headers },
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const { value, done: ended } = await reader.read();
        if (ended) return;
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(() => text.includes(": connected\n\n"));
    await during();
    await readUntil(() => (text.match(/^data: /gm) ?? []).length >= events && text.endsWith("\n\n"));
    abort.abort();
    await reader.cancel().catch(() => {});
    // The cursor is the row id on SQLite and `xid.id` on PostgreSQL: its form is the engine's.
    const body = text.replace(/^id: .+$/gm, "id: <cursor>");
    this.rec.streamed(label, `GET admin/admin/v1/events [${Object.keys(headers).join(",")}]`, response, body);
  }
}
