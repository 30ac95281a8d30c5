/**
 * The recording side of the front-door differential test (tests/api/front-door-differential.test.ts):
 * each answer becomes a plain, comparable entry (status, the headers that matter, the body) with every
 * value that changes from run to run replaced by a stable placeholder, so two runs of the same
 * scenario, on either engine and before or after a refactor of the front door, give the same file.
 *
 * Volatile and how it is kept comparable:
 * - the listeners' ports (known: the gateway's two, the provider's) → `<port:public>`, …; other ports
 *   (the apps' registered origins) are fixed and stay;
 * - UUIDs (resource, session, event and request ids) → `<id:n>`, numbered in the order first seen, so
 *   the recording still shows which resource an answer names;
 * - opaque values → `<opaque:n>`, numbered the same way: the ones the scenario knows (tokens,
 *   challenges it sent: `secret`), a query parameter's value of 16+ characters (state, challenges,
 *   verifiers in a Location or a `redirect_to`), JWT/JWE-shaped values, CSP nonces, a JSON value under a key
 *   that holds one (`challenge`, `nextCursor`, `cursor`);
 * - ISO times → `<time>` (not numbered: two rows may share a millisecond); `expires_in`-like seconds,
 *   `Retry-After`, `X-Request-Id` (`<generated>` unless it echoes the one sent) → placeholders;
 * - a Set-Cookie keeps its name, whether it has a value, and its attribute set (sorted, lower-cased
 *   names, volatile values replaced, Max-Age in minutes); `Date` is dropped; `Content-Length` is recorded as `=body` when it
 *   matches the body's bytes;
 * - the metrics text keeps its series and labels, not their values (latencies).
 * Bodies over BIG_BODY characters (the OpenAPI documents, the landing script) are kept as a hash.
 */
import type { RawAnswer } from "./raw-http.ts";

export interface Entry {
  label: string;
  request: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: unknown;
}

const BIG_BODY = 6000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
/** A long query parameter value, and a JOSE compact serialization (`eyJ…`, with 2 or 4 dots). */
const QUERY_VALUE = /([?&][A-Za-z_]+=)([A-Za-z0-9_.~%-]{16,})/g;
/** A CSP nonce, in the header and on the element. */
const NONCE = /(nonce-|nonce=")([A-Za-z0-9+/_=-]{16,})/g;
const JOSE = /eyJ[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*){2,4}/g;
/** JSON keys whose string value (a UUID aside) is opaque: session ids, cursors, challenges, pseudonyms. */
const OPAQUE_KEYS = new Set(["id", "challenge", "nextCursor", "cursor", "pseudonym"]);
const JUST_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Keys whose number is a time span, or a count the scenario does not decide: the token cache's hits
 * depend on how often the pipeline asks the cache (the engines and the fast path differ), and its
 * misses on whether a check was in flight when a logout dropped the subject's checks (such a check
 * serves its request but is not kept, so the next call is another miss).
 */
const VOLATILE_NUMBERS = new Set(["expires_in", "uptimeSeconds", "retryAfterSeconds", "hits", "misses"]);
const DROPPED_HEADERS = new Set(["date", "keep-alive", "connection"]);

export class Recorder {
  readonly entries: Entry[] = [];
  private readonly seen = new Map<string, string>();
  private counts = { id: 0, opaque: 0 };
  private readonly ports: Map<string, string>;
  private readonly secrets = new Set<string>();

  /** `ports`: a name for each listener's port that changes from run to run. */
  constructor(ports: Record<string, string | number>) {
    this.ports = new Map(Object.entries(ports).map(([name, port]) => [String(port), name]));
  }

  private placeholder(kind: "id" | "opaque", value: string): string {
    const key = `${kind}:${value}`;
    let found = this.seen.get(key);
    if (!found) {
      found = `<${kind}:${++this.counts[kind]}>`;
      this.seen.set(key, found);
    }
    return found;
  }

  /** A value the scenario knows is opaque (a token, a challenge): replaced wherever it appears. */
  secret(value: string) {
    if (value.length >= 8) this.secrets.add(value);
  }

  /** A text with its volatile parts replaced. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets)
      if (out.includes(secret)) out = out.replaceAll(secret, this.placeholder("opaque", secret));
    return out
      .replace(/(127\.0\.0\.1|localhost|%5B::1%5D|\[::1\]):(\d{2,5})/g, (all, host: string, port: string) => {
        const name = this.ports.get(port);
        return name ? `${host}:<port:${name}>` : all;
      })
      .replace(ISO_TIME, "<time>")
      .replace(UUID, (id) => this.placeholder("id", id.toLowerCase()))
      .replace(JOSE, (token) => this.placeholder("opaque", token))
      .replace(NONCE, (_, before: string, nonce: string) => `${before}${this.placeholder("opaque", nonce)}`)
      .replace(QUERY_VALUE, (_, name: string, value: string) =>
        value.startsWith("<") ? `${name}${value}` : `${name}${this.placeholder("opaque", value)}`,
      );
  }

  private value(key: string, value: unknown): unknown {
    if (typeof value === "string" && OPAQUE_KEYS.has(key) && !JUST_UUID.test(value)) {
      this.secret(value); // the same value in a later path or text gets the same placeholder
      return this.placeholder("opaque", value);
    }
    if (typeof value === "string") return this.scrub(value);
    if (typeof value === "number" && VOLATILE_NUMBERS.has(key)) return "<number>";
    if (Array.isArray(value)) return value.map((item) => this.value(key, item));
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [this.scrub(k), this.value(k, v)] as const),
      );
    return value;
  }

  private body(text: string, contentType: string): unknown {
    if (contentType.startsWith("text/plain") && text.includes("# TYPE")) return metricsSeries(text);
    if (text.length > BIG_BODY)
      return { bytes: text.length, sha256: new Bun.CryptoHasher("sha256").update(text).digest("hex") };
    if (contentType.includes("json") && text !== "") {
      try {
        return this.value("", JSON.parse(text));
      } catch {
        // not JSON after all: kept as text
      }
    }
    return this.scrub(text);
  }

  private cookie(header: string): string {
    const [pair = "", ...attributes] = header.split(";");
    const eq = pair.indexOf("=");
    const name = this.scrub(pair.slice(0, eq).trim());
    const value = pair.slice(eq + 1).trim();
    const kept = attributes
      .map((attribute) => {
        const [key = "", ...rest] = attribute.trim().split("=");
        const v = rest.join("=");
        const k = key.toLowerCase();
        if (k === "expires") return v && Date.parse(v) <= 0 ? "expires=<past>" : "expires=<time>";
        // A lifetime counted from now: a second may pass between the row and the header.
        if (k === "max-age" && Number(v) > 60) return `max-age≈${Math.round(Number(v) / 60)}min`;
        return v === "" ? k : `${k}=${this.scrub(v)}`;
      })
      .sort();
    return [`${name}=${value === "" ? "" : "<value>"}`, ...kept].join("; ");
  }

  private headers(
    pairs: Iterable<[string, string]>,
    setCookies: string[],
    bodyBytes: number,
    sentRequestId?: string,
  ): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [rawName, value] of pairs) {
      const name = rawName.toLowerCase();
      if (DROPPED_HEADERS.has(name) || name === "set-cookie") continue;
      if (name === "x-request-id") out[name] = value === sentRequestId ? value : "<generated>";
      else if (name === "retry-after") out[name] = /^\d+$/.test(value) ? "<seconds>" : value;
      else if (name === "content-length") out[name] = Number(value) === bodyBytes ? "=body" : value;
      else out[name] = this.scrub(value);
    }
    if (setCookies.length > 0) out["set-cookie"] = setCookies.map((c) => this.cookie(c));
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Records a fetch answer (its body is read here) and returns the body as it came. */
  async response(label: string, request: string, response: Response, sentRequestId?: string) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    this.fetched(label, request, response, text, bytes.byteLength, sentRequestId);
    return text;
  }

  /** Records a stream's headers and the part of it read (already normalized by the caller). */
  streamed(label: string, request: string, response: Response, text: string) {
    this.fetched(label, request, response, text, Buffer.byteLength(text));
  }

  private fetched(
    label: string,
    request: string,
    response: Response,
    text: string,
    bodyBytes: number,
    sentRequestId?: string,
  ) {
    const headers = [...response.headers].filter(([name]) => name !== "set-cookie");
    this.push(label, request, response.status, {
      headers: this.headers(headers, response.headers.getSetCookie(), bodyBytes, sentRequestId),
      body: this.body(text, response.headers.get("content-type") ?? ""),
    });
  }

  /** Records an answer read off a raw socket (tests/helpers/raw-http.ts). */
  raw(label: string, request: string, answer: RawAnswer) {
    const setCookie = answer.headers["set-cookie"];
    this.push(label, request, answer.status, {
      headers: this.headers(
        Object.entries(answer.headers),
        setCookie ? [setCookie] : [],
        Buffer.byteLength(answer.body),
      ),
      body: this.body(answer.body, answer.headers["content-type"] ?? ""),
    });
  }

  private push(label: string, request: string, status: number, rest: Pick<Entry, "headers" | "body">) {
    this.entries.push({ label: this.scrub(label), request: this.scrub(request), status, ...rest });
  }
}

/** Prometheus text: each series with its labels, without its value (latencies, counts of setup). */
function metricsSeries(text: string): string[] {
  const series = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    series.add(line.slice(0, line.lastIndexOf(" ")));
  }
  return [...series].sort();
}
