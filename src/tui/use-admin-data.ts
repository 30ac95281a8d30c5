/**
 * Keeps the data of the screen on view fresh. The event stream is only an invalidation signal: any event
 * schedules one re-list of what is on screen (throttled to 100 ms), a slow full re-list runs as a safety net,
 * and every (re)connect of the stream re-lists. Requests never overlap; a change asked for during a request
 * runs right after it. A failed re-list keeps the last rows and retries with backoff (2 s → 60 s, jitter).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { backoffDelay } from "./backoff.ts";
import type {
  AdminClient,
  AdminEvent,
  MemberRow,
  Overview,
  PendingRow,
  ResourceRow,
  SessionRow,
  StreamStatus,
} from "./client.ts";
import { describeError } from "./errors.ts";
import type { View } from "./keys.ts";

export const PAGE_LIMIT = 100;

export type ViewData =
  | { view: "overview"; overview: Overview }
  | { view: "sessions"; rows: SessionRow[]; more: boolean }
  | { view: "pending"; rows: PendingRow[]; more: boolean }
  | { view: "resources"; rows: ResourceRow[]; more: boolean }
  | { view: "roster"; rows: MemberRow[]; more: boolean };

export interface Loaded {
  data: ViewData;
  at: number;
}

export interface Connection {
  /** null until the first answer or failure. */
  ok: boolean | null;
  error: string | null;
  retryAt: number | null;
}

export interface AdminData {
  loaded: Loaded | undefined;
  connection: Connection;
  refresh(): void;
}

export function viewKey(view: View, rosterId: string | undefined): string {
  return view === "roster" ? `roster:${rosterId ?? ""}` : view;
}

async function fetchView(client: AdminClient, key: string): Promise<ViewData> {
  if (key === "overview") return { view: "overview", overview: await client.getOverview() };
  if (key === "sessions") {
    const page = await client.listSessions({ limit: PAGE_LIMIT });
    return { view: "sessions", rows: page.sessions, more: page.nextCursor != null };
  }
  if (key === "pending") {
    const page = await client.listPending({ limit: PAGE_LIMIT });
    return { view: "pending", rows: page.pending, more: page.nextCursor != null };
  }
  if (key === "resources") {
    const page = await client.listResources({ limit: PAGE_LIMIT });
    return { view: "resources", rows: page.resources, more: page.nextCursor != null };
  }
  const page = await client.listMembers(key.slice("roster:".length));
  return { view: "roster", rows: page.members, more: false };
}

export interface AdminDataOptions {
  resyncMs?: number;
  throttleMs?: number;
  /** Sees every event of the stream (after it has scheduled the re-list), e.g. to alert the operator. */
  onEvent?: (event: AdminEvent) => void;
}

export function useAdminData(client: AdminClient, key: string, options: AdminDataOptions = {}): AdminData {
  const resyncMs = options.resyncMs ?? 30_000;
  const throttleMs = options.throttleMs ?? 100;
  const [cache, setCache] = useState<Record<string, Loaded>>({});
  const [fetchState, setFetchState] = useState<{
    error: string | null;
    retryAt: number | null;
    ok: boolean | null;
  }>({
    ok: null,
    error: null,
    retryAt: null,
  });
  const [stream, setStream] = useState<StreamStatus | null>(null);

  const keyRef = useRef(key);
  keyRef.current = key;
  const alive = useRef(true);
  const inFlight = useRef(false);
  const again = useRef(false);
  const attempt = useRef(0);
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const throttleTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const load = useCallback(async (): Promise<void> => {
    if (inFlight.current) {
      again.current = true;
      return;
    }
    inFlight.current = true;
    clearTimeout(retryTimer.current);
    const key = keyRef.current;
    try {
      const data = await fetchView(client, key);
      if (!alive.current) return;
      attempt.current = 0;
      setCache((c) => ({ ...c, [key]: { data, at: Date.now() } }));
      setFetchState({ ok: true, error: null, retryAt: null });
    } catch (error) {
      if (!alive.current) return;
      const delay = backoffDelay(attempt.current);
      attempt.current += 1;
      setFetchState({ ok: false, error: describeError(error), retryAt: Date.now() + delay });
      retryTimer.current = setTimeout(() => void load(), delay);
    } finally {
      inFlight.current = false;
      if (again.current && alive.current) {
        again.current = false;
        void load();
      }
    }
  }, [client]);

  const invalidate = useCallback(() => {
    if (throttleTimer.current) return;
    throttleTimer.current = setTimeout(() => {
      throttleTimer.current = undefined;
      void load();
    }, throttleMs);
  }, [load, throttleMs]);

  // Whatever comes on screen is fetched at once (the cached rows show meanwhile).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key is read through keyRef; it only triggers.
  useEffect(() => {
    void load();
  }, [key, load]);

  useEffect(() => {
    const timer = setInterval(() => void load(), resyncMs);
    return () => clearInterval(timer);
  }, [load, resyncMs]);

  const onEvent = useRef(options.onEvent);
  onEvent.current = options.onEvent;
  useEffect(() => {
    const seen = (event: AdminEvent) => {
      invalidate();
      onEvent.current?.(event);
    };
    const unsubscribe = client.subscribe(seen, (status) => {
      if (!alive.current) return;
      setStream(status);
      if (status.state === "open") void load();
    });
    return unsubscribe;
  }, [client, invalidate, load]);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      clearTimeout(retryTimer.current);
      clearTimeout(throttleTimer.current);
    };
  }, []);

  const streamDown = stream?.state === "retrying" ? stream : null;
  const down = fetchState.ok === false || streamDown !== null;
  const retries = [fetchState.ok === false ? fetchState.retryAt : null, streamDown?.retryAt ?? null].filter(
    (t): t is number => t !== null,
  );
  const connection: Connection = {
    ok: down ? false : fetchState.ok,
    error: fetchState.ok === false ? fetchState.error : (streamDown?.error ?? null),
    retryAt: retries.length ? Math.min(...retries) : null,
  };
  return { loaded: cache[key], connection, refresh: () => void load() };
}
