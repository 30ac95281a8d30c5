/**
 * The one mapper from a refusal to an answer. Every refusal is a domain `Refusal` (domain/refusal.ts)
 * with a stable snake_case `code`; its status and message come from the one table (domain/refusals.ts).
 * The body is always `{ error, code }` (plus a refusal's own body fields; a browser navigating to one
 * of the gateway's pages may get the HTML form instead: error-page.ts). Nothing else (no stack, no SQL,
 * no provider body) ever reaches a client; unexpected failures become 500 `internal` with a request id
 * that is also in the log line.
 */
import { pick, type Refusal } from "../domain/refusal.ts";
import { REFUSAL_CODES, REFUSALS, type RefusalCode } from "../domain/refusals.ts";

/** Every `code` an `{error, code}` body of the gateway carries: the OpenAPI `Error.code` and the SDK's list. */
export const ERROR_CODES: readonly RefusalCode[] = REFUSAL_CODES;

/** The HTTP status the table gives `refusal`. */
export function statusOf(refusal: Refusal): number {
  return pick(REFUSALS[refusal.code].status, refusal.facts);
}

/** The headers a refusal's answer carries besides the usual ones: Retry-After, Connection: close. */
export function headersOf(refusal: Refusal): Record<string, string> {
  const headers: Record<string, string> = {};
  if (refusal.retryAfterSeconds !== undefined) headers["retry-after"] = String(refusal.retryAfterSeconds);
  if (refusal.endsConnection) headers.connection = "close";
  return headers;
}

export function errorBody(refusal: Refusal, requestId?: string): Record<string, string> {
  const body: Record<string, string> = { ...refusal.body, error: refusal.message, code: refusal.code };
  if (requestId && statusOf(refusal) >= 500) body.requestId = requestId;
  return body;
}
