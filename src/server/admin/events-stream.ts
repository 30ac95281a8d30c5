/**
 * `GET /admin/v1/events`: Server-Sent Events, one per audit row, `id:` = the row's cursor (its id on
 * SQLite, `xid.id` on PostgreSQL). `Last-Event-ID` resumes after that row on any process (without it
 * the stream starts at the newest row, not at the beginning of history; `0` replays everything). Rows
 * are read from the database after commit, so the stream never shows a change that was rolled back,
 * and a reconnecting client loses and repeats nothing. Every process's commits wake it (a
 * notification channel), and it reads once a second anyway in case a wake-up was lost. A comment heartbeat every 15 s
 * keeps proxies (and Bun's idle timeout) from closing a quiet stream.
 *
 * HEAD gets the stream's headers and no stream: Elysia answers HEAD on a GET route by reading the GET
 * body to its end (for Content-Length), and this body never ends, so a HEAD would never be answered.
 */
import type { AdminQueries, EventCursor } from "./queries.ts";

export const HEARTBEAT_MS = 15_000;
const SWEEP_MS = 1000;

/** The open streams: a shutdown ends them, since a stream never finishes on its own. */
const openStreams = new Set<() => void>();

/** Ends every open event stream (the client reconnects elsewhere, resuming by Last-Event-ID). */
export function closeEventStreams(): void {
  for (const stop of [...openStreams]) stop();
}

const HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

export function eventStream(queries: AdminQueries, request: Request): Response {
  if (request.method === "HEAD") return new Response(null, { headers: HEADERS });
  const header = request.headers.get("last-event-id");
  // Without a valid Last-Event-ID the stream starts after the newest row when it opens (read by the first flush).
  let last: EventCursor | undefined = queries.parseCursor(header);
  const encoder = new TextEncoder();
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      // One reader at a time; a wake-up during a read makes it read once more, so nothing is missed.
      let reading = false;
      let again = false;
      // ": connected" goes once the starting point is read: what is committed after it is delivered.
      let announced = false;
      const flush = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          let cursor = last ?? (await queries.lastEventCursor());
          last = cursor;
          if (!announced) {
            announced = true;
            send(": connected\n\n");
          }
          do {
            again = false;
            for (;;) {
              const rows = await queries.eventsAfter(cursor);
              for (const row of rows) {
                send(`id: ${row.cursor}\ndata: ${JSON.stringify(row.event)}\n\n`);
                cursor = row.next;
              }
              last = cursor;
              if (rows.length < 500) break;
            }
          } while (again && open);
        } catch {
          // The database is unreachable right now: the next wake-up (or the client's reconnect) reads on.
        } finally {
          reading = false;
        }
      };
      const unsubscribe = queries.onEvents(() => void flush());
      // A safety net: a notification lost while a listener reconnected is read within a second.
      const sweep = setInterval(() => void flush(), SWEEP_MS);
      const heartbeat = setInterval(() => send(": heartbeat\n\n"), HEARTBEAT_MS);
      stop = () => {
        if (!open) return;
        open = false;
        openStreams.delete(stop);
        unsubscribe();
        clearInterval(heartbeat);
        clearInterval(sweep);
        try {
          controller.close();
        } catch {}
      };
      openStreams.add(stop);
      request.signal.addEventListener("abort", stop);
      send("retry: 2000\n\n");
      void flush();
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, { headers: HEADERS });
}
