/**
 * How every answer is written, in one place (the pipeline's answer and error hooks use it):
 * - `Cache-Control: no-store` and `X-Content-Type-Options: nosniff` on every answer: answers carry who is
 *   signed in and their data, never to be stored by a browser or a shared cache;
 * - the CORS grant, for an Origin registered for a client (decided once per request, when the request
 *   is admitted); a refused origin loses it (origin.ts);
 * - a JSON answer is built from one Headers object, copied (building four headers from an object
 *   literal costs about three times as much), and the answer of a cached row is rendered once: its JSON
 *   text kept beside the row (a WeakMap keyed by it), so it goes when the row goes (any change replaces
 *   the row). A browse page's twenty dates as ISO strings cost more than the rest of the request.
 */
import type { AppRegistry } from "../apps/registry.ts";

export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};
const JSON_HEADERS = new Headers({
  ...ANSWER_HEADERS,
  "content-type": "application/json;charset=utf-8",
});
/** One ResponseInit for every JSON answer: the framework would build its headers from an object each time. */
const JSON_INIT: ResponseInit = { headers: JSON_HEADERS };

export type CorsGrant = Record<string, string>;

/** The CORS grant of a registered origin (credentials allowed), else undefined. */
export function corsHeaders(apps: AppRegistry, origin: string | null): CorsGrant | undefined {
  if (!origin || !apps.isAllowedOrigin(origin)) return undefined;
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    vary: "Origin",
  };
}

/** What a refused origin keeps of its grant: `Vary: Origin` alone (the answer still depends on it). */
export function refusedGrant(grant: CorsGrant | undefined): CorsGrant | undefined {
  return grant && { vary: grant.vary! };
}

/** JSON already rendered: sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

const texts = new WeakMap<object, JsonText>();

/** The answer of a cached row (or rows array), rendered on its first use and kept while the row lives. */
export function renderedOnce<T extends object>(rows: T, view: (rows: T) => unknown): JsonText {
  let text = texts.get(rows);
  if (text === undefined) {
    text = new JsonText(JSON.stringify(view(rows)));
    texts.set(rows, text);
  }
  return text;
}

/** A JSON answer (200): its text, the answer headers, the request's id, the grant. */
export function jsonAnswer(text: string, requestId: string, grant: CorsGrant | undefined): Response {
  const response = new Response(text, JSON_INIT);
  const { headers } = response;
  headers.set("x-request-id", requestId);
  if (grant !== undefined) for (const name in grant) headers.set(name, grant[name]!);
  return response;
}

/** The answer headers and the grant, for an answer the framework writes: what a route set stays. */
export function addAnswerHeaders(headers: Record<string, unknown>, grant: CorsGrant | undefined): void {
  for (const name in ANSWER_HEADERS) headers[name] ??= ANSWER_HEADERS[name];
  if (grant !== undefined) for (const name in grant) headers[name] ??= grant[name];
}
