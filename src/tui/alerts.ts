/**
 * Events an operator must notice even when no screen lists them: a refresh token reused after its
 * grace (a stolen cookie; the gateway has already ended the session and revoked its grant).
 */
import type { AdminEvent } from "./client.ts";

export function alertFor(event: AdminEvent): string | undefined {
  if (event.type !== "session.reuse_detected") return undefined;
  const data = (event.data ?? {}) as { sessionId?: string; clientId?: string };
  return `! Refresh token reuse: session ${data.sessionId ?? "?"} of ${event.userId ?? "?"} (${data.clientId ?? "?"}) ended, grant revoked.`;
}
