/**
 * A fake admin API on 127.0.0.1 with the admin API's shapes (auth, lists, a resource, deletes, and an SSE stream
 * that events can be pushed into), so the real TUI binary can be driven end to end in tmux. It can be
 * stopped and started again on the same port to play a gateway restart.
 */
import type { Server } from "bun";
import type { SessionRow } from "../../src/tui/client.ts";
import { fakeState } from "./fake-client.ts";

export function startFakeAdmin(options: { token: string; port?: number }) {
  const state = fakeState();
  const requests: string[] = [];
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  let eventId = 0;
  let server: Server<undefined> | undefined;

  const json = (body: unknown, status = 200) => Response.json(body, { status });
  function handle(request: Request): Response {
    const url = new URL(request.url);
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (request.headers.get("authorization") !== `Bearer ${options.token}`)
      return json({ error: "unauthenticated", code: "unauthenticated" }, 401);
    const path = url.pathname;
    if (path === "/admin/v1/overview")
      return json({ ...state.overview, sessions: { active: state.sessions.length } });
    if (path === "/admin/v1/sessions" && request.method === "GET")
      return json({ sessions: state.sessions, nextCursor: null });
    const session = /^\/admin\/v1\/sessions\/([^/]+)$/.exec(path);
    if (session && request.method === "DELETE") {
      const id = decodeURIComponent(session[1] ?? "");
      if (!state.sessions.some((s) => s.id === id))
        return json({ error: "no such session", code: "not_found" }, 404);
      state.sessions = state.sessions.filter((s) => s.id !== id);
      push("session.ended");
      return json({ ok: true });
    }
    if (path === "/admin/v1/pending") return json({ pending: state.pending, nextCursor: null });
    if (path === "/admin/v1/resources") return json({ resources: state.resources, nextCursor: null });
    if (path === "/admin/v1/audit") return json({ events: state.events, nextCursor: null });
    const one = /^\/admin\/v1\/resources\/([^/]+)$/.exec(path);
    const found = one && state.resources.find((r) => r.id === decodeURIComponent(one[1] ?? ""));
    if (one) return found ? json(found) : json({ error: "No such resource.", code: "not_found" }, 404);
    const members = /^\/admin\/v1\/resources\/([^/]+)\/members$/.exec(path);
    if (members) return json({ members: state.members[decodeURIComponent(members[1] ?? "")] ?? [] });
    if (path === "/admin/v1/events") {
      let self: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          self = controller;
          streams.add(controller);
          controller.enqueue(encoder.encode(": connected\n\n"));
        },
        cancel() {
          streams.delete(self);
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-store" },
      });
    }
    return json({ error: "not found", code: "not_found" }, 404);
  }

  function push(type: string, userId: string | null = null) {
    eventId += 1;
    const row = {
      id: eventId,
      type,
      actor: null,
      resourceId: null,
      userId,
      data: null,
      at: new Date().toISOString(),
    };
    const frame = encoder.encode(`id: ${eventId}\ndata: ${JSON.stringify(row)}\n\n`);
    for (const controller of streams) {
      try {
        controller.enqueue(frame);
      } catch {
        streams.delete(controller);
      }
    }
  }

  function start(port = options.port ?? 0) {
    // idleTimeout 0: Bun closes a connection idle for 10 s by default, which would cut a quiet SSE stream.
    server = Bun.serve({ hostname: "127.0.0.1", port, idleTimeout: 0, fetch: handle });
    return server.port as number;
  }

  function stop() {
    for (const controller of streams) {
      try {
        controller.error(new Error("server stopped"));
      } catch {
        // already closed
      }
    }
    streams.clear();
    server?.stop(true);
    server = undefined;
  }

  const port = start();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    state,
    requests,
    addSession(row: SessionRow) {
      state.sessions.unshift(row);
      push("session.created", row.userId);
    },
    push,
    stop,
    restart: () => start(port),
  };
}

if (import.meta.main) {
  const fake = startFakeAdmin({ token: "dev", port: Number(process.env.PORT ?? 0) });
  console.log(`fake admin API on ${fake.url} (token "dev")`);
}
