// Small bridge between node:http (which oidc-provider needs) and Web-standard
// Request/Response (which the Hydra/Kratos emulation handlers use), plus JSON
// helpers producing Hydra's and Kratos' error envelopes.
import type { IncomingMessage, ServerResponse } from "node:http";

export async function toWebRequest(req: IncomingMessage, base: string): Promise<Request> {
  const method = req.method ?? "GET";
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  let body: ArrayBuffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const all = Buffer.concat(chunks);
    body = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  }
  return new Request(new URL(req.url ?? "/", base), { method, headers, body });
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  const body = Buffer.from(await response.arrayBuffer());
  res.setHeader("content-length", String(body.length));
  res.end(body);
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  500: "Internal Server Error",
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? "Error";
}

/** Hydra's `errorOAuth2` envelope. */
export function hydraError(status: number, error: string, description: string): Response {
  return json({ error, error_description: description, status_code: status }, status);
}

export function redirect(location: string, status = 303, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { location, "cache-control": "no-store", ...headers } });
}

/** Reads a JSON object body; returns undefined when it is not a JSON object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown> | undefined> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function objectOr(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
