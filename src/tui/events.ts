/**
 * The admin event stream over fetch streaming, parsed with eventsource-parser (no global EventSource: Node
 * lacks one and we need the Authorization header). Events are only an invalidation signal for the screens;
 * after every (re)connect the caller re-lists, because a reconnect does not replay what it missed unless the
 * server still has it. Reconnects back off 2 s → 60 s with jitter; a silent connection (no byte, not even the
 * 15 s heartbeat, for 45 s) counts as dead; `reconnect()` cuts a wait short and starts the backoff over.
 * A refused token (401) or a disabled admin API (503 admin_disabled) is final: retrying cannot help.
 */
import { createParser } from "eventsource-parser";
import { type BackoffOptions, backoffDelay, sleep } from "./backoff.ts";
import type { AdminEvent, StreamStatus, Subscription } from "./client.ts";
import { AdminApiError, isRefusal, toApiError } from "./errors.ts";

export interface SubscribeOptions {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  onEvent: (event: AdminEvent) => void;
  onStatus: (status: StreamStatus) => void;
  silenceMs?: number;
  backoff?: BackoffOptions;
}

export function subscribeEvents(options: SubscribeOptions): Subscription {
  const stop = new AbortController();
  /** Aborted to end the current wait between attempts early. */
  let wait = new AbortController();
  const silenceMs = options.silenceMs ?? 45_000;
  let lastEventId: string | undefined;
  let attempt = 0;

  async function connectOnce(): Promise<void> {
    const connection = new AbortController();
    const abort = () => connection.abort();
    stop.signal.addEventListener("abort", abort, { once: true });
    let watchdog = setTimeout(abort, silenceMs);
    try {
      const headers: Record<string, string> = { ...options.headers, accept: "text/event-stream" };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const response = await options.fetch(options.url, { headers, signal: connection.signal });
      if (!response.ok) throw await toApiError(response);
      if (!response.body) throw new Error("the event stream has no body");
      attempt = 0;
      options.onStatus({ state: "open" });
      const parser = createParser({
        onEvent(message) {
          if (message.id) lastEventId = message.id;
          try {
            options.onEvent(JSON.parse(message.data) as AdminEvent);
          } catch {
            // A malformed row is still a change: let the screens re-list.
            options.onEvent({
              id: Number(message.id?.split(".").pop()) || 0,
              type: "unknown",
              actor: null,
              resourceId: null,
              userId: null,
              data: null,
              at: "",
            });
          }
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        clearTimeout(watchdog);
        watchdog = setTimeout(abort, silenceMs);
        parser.feed(value);
      }
      throw new Error("the event stream ended");
    } finally {
      clearTimeout(watchdog);
      stop.signal.removeEventListener("abort", abort);
    }
  }

  void (async () => {
    while (!stop.signal.aborted) {
      try {
        await connectOnce();
      } catch (error) {
        if (stop.signal.aborted) return;
        if (isRefusal(error)) {
          options.onStatus({ state: "refused", error: (error as AdminApiError).code });
          return;
        }
        const delay = backoffDelay(attempt, options.backoff);
        attempt += 1;
        options.onStatus({
          state: "retrying",
          retryAt: Date.now() + delay,
          attempt,
          error: streamReason(error, stop.signal),
        });
        wait = new AbortController();
        await sleep(delay, AbortSignal.any([stop.signal, wait.signal]));
      }
    }
  })();

  return {
    close: () => stop.abort(),
    reconnect() {
      attempt = 0;
      wait.abort();
    },
  };
}

/** A short reason for the header: the admin API's code, or what happened to the connection. */
function streamReason(error: unknown, stopped: AbortSignal): string {
  if (error instanceof AdminApiError) return error.code;
  if (error instanceof Error && error.message === "the event stream ended") return "stream ended";
  if (error instanceof Error && error.name === "AbortError" && !stopped.aborted) return "stream silent";
  return "unreachable";
}
