/**
 * A raw HTTP/1.1 client over `node:net` for wire tests that `fetch` cannot express: headers of any
 * size, a body trickled byte by byte, a client on another address. `rawExchange` writes, then reads
 * until the server closes or a complete answer (per Content-Length) has arrived, or `timeoutMs` passes
 * (then it hangs up, as a client giving up does).
 */

import { expect } from "bun:test";
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte written to the end of the answer. */
  elapsed: number;
  timedOut: boolean;
}

export interface RawOptions {
  /** Called once connected; write the request (all at once or trickled). */
  send: (write: (chunk: string) => boolean) => void | Promise<void>;
  timeoutMs?: number;
  /** Connect from this local address: on loopback, 127.0.0.2, 127.0.0.3, … are other clients. */
  localAddress?: string;
}

export function rawExchange(baseUrl: string, options: RawOptions): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const started = performance.now();
    let data = Buffer.alloc(0);
    let settled = false;
    const socket = connect({ port: Number(port), host: hostname, localAddress: options.localAddress });
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(data), elapsed: performance.now() - started, timedOut });
    };
    const timer = setTimeout(() => finish(true), options.timeoutMs ?? 5000);
    socket.on("connect", () => {
      void options.send((chunk) => !socket.destroyed && socket.write(chunk));
    });
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const parsed = parse(data);
      const length = parsed.headers["content-length"];
      if (length !== undefined && Buffer.byteLength(parsed.body) >= Number(length)) finish(false);
    });
    socket.on("close", () => finish(false));
    socket.on("error", () => finish(false));
  });
}

/** A GET of `url` from `localAddress` (another client on this machine), with `headers`. */
export function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string> = {},
  timeoutMs?: number,
): Promise<RawAnswer> {
  const { host, pathname, search } = new URL(url);
  const lines = Object.entries({ host, connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return rawExchange(url, {
    localAddress,
    timeoutMs,
    send: (write) => void write(`GET ${pathname}${search} HTTP/1.1\r\n${lines.join("")}\r\n`),
  });
}

function parse(data: Buffer): Omit<RawAnswer, "elapsed" | "timedOut"> {
  const text = data.toString("utf8");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return { status: 0, headers: {}, body: "" };
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body: text.slice(end + 4) };
}

/** `GET path` with one `x-filler` header of `bytes` bytes (a header block over a limit). */
export function getWithFiller(baseUrl: string, path: string, bytes: number): Promise<RawAnswer> {
  return rawExchange(baseUrl, {
    send: (write) => {
      write(
        `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-filler: ${"a".repeat(bytes)}\r\nconnection: close\r\n\r\n`,
      );
    },
  });
}

/** A refusal of the gateway's own: JSON `{error, code}` with this code. */
export function expectJsonRefusal(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toContain("application/json");
  expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String), code });
}
