/**
 * A request body must arrive within a time bound (10 s by default, counted from when the gateway
 * starts reading it; bodies are at most 64 KiB, so an honest client needs a fraction of that). A body
 * still incomplete then is answered 408 `request_timeout` (with `Connection: close`) instead of
 * holding the request open until the runtime's idle timer drops the connection with no answer (Bun's
 * idle timer is not reset by body bytes, so a slow upload would otherwise just be cut).
 */
import { Refusal } from "../domain/refusal.ts";

export const BODY_TIMEOUT_MS = 10_000;

export function requestTimeout(): Refusal {
  return new Refusal("request_timeout", { during: "body", endsConnection: true });
}

/** The request's body bytes, or 408 request_timeout once `timeoutMs` has passed. */
export async function readBody(request: Request, timeoutMs = BODY_TIMEOUT_MS): Promise<ArrayBuffer> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reading = request.arrayBuffer();
  // The read may fail later (the client goes away after the 408): nothing waits for it then.
  reading.catch(() => {});
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(requestTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
}
