/**
 * Keeps the data of the screen on view fresh. The event stream is only an invalidation signal: any event
 * schedules one re-list of what is on screen (throttled to 100 ms), a slow full re-list runs as a safety net,
 * and every (re)connect of the stream re-lists. Requests never overlap; a change asked for during a request
 * runs right after it. A failed re-list keeps the last rows and retries with backoff (2 s → 60 s, jitter);
 * `refresh()` retries at once and starts the backoff over. A refused token is final (`fatal`), never retried.
 *
 * Lists load a page of 100 and `loadMore()` the next one through the API's cursor; a re-list fetches as
 * many rows as were loaded, so scrolling far down survives the next event. A `frozen` screen (paused
 * events) is not re-listed by events or timers, only by `refresh()`.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { backoffDelay } from "./backoff.ts";
import type {
  AdminClient,
  AdminEvent,
  MemberRow,
  Overview,
  ResourceRow,
  StreamStatus,
  Subscription,
  UserDetail,
} from "./client.ts";
import { AdminApiError, describeError, isRefusal } from "./errors.ts";

export const PAGE_LIMIT = 100;
/** How many of a user's events the user screen shows. */
export const USER_EVENTS = 20;

export type ViewData =
  | { kind: "overview"; overview: Overview }
  | { kind: "list"; rows: unknown[]; nextCursor: string | null }
  | { kind: "roster"; resource: ResourceRow; rows: MemberRow[] }
  | { kind: "user"; user: UserDetail; events: AdminEvent[] }
  /** A resource that is not there (deleted since, or a wrong id): said on screen, not retried. */
  | { kind: "missing"; message: string };

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
  /** The code of a refusal no retry can fix (a wrong token), once one came. */
  fatal: string | null;
  /** Re-lists now; after a failure, also reconnects the stream now and starts the backoff over. */
  refresh(): void;
  /** Loads the next page of the list on screen (nothing when there is none or one is on its way). */
  loadMore(): void;
}

/** The key of what a screen shows: its place and the query the server filters with. */
export function dataKey(place: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query).sort()) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${place}?${text}` : place;
}

type Page = { rows: unknown[]; nextCursor: string | null };
type Lister = (client: AdminClient, options: Record<string, string | number | undefined>) => Promise<Page>;

const LISTERS: Record<string, Lister> = {
  sessions: async (c, o) => {
    const p = await c.listSessions(o);
    return { rows: p.sessions, nextCursor: p.nextCursor };
  },
  pending: async (c, o) => {
    const p = await c.listPending(o);
    return { rows: p.pending, nextCursor: p.nextCursor };
  },
  resources: async (c, o) => {
    const p = await c.listResources(o);
    return { rows: p.resources, nextCursor: p.nextCursor };
  },
  events: async (c, o) => {
    const p = await c.listAudit(o);
    return { rows: p.events, nextCursor: p.nextCursor };
  },
};

function splitKey(key: string): { place: string; query: Record<string, string> } {
  const [place = "", search = ""] = key.split("?");
  return { place, query: Object.fromEntries(new URLSearchParams(search)) };
}

async function fetchView(client: AdminClient, key: string, minRows: number): Promise<ViewData> {
  const { place, query } = splitKey(key);
  if (place === "overview") return { kind: "overview", overview: await client.getOverview() };
  if (place.startsWith("roster:")) {
    const id = place.slice("roster:".length);
    try {
      const [resource, roster] = await Promise.all([client.getResource(id), client.listMembers(id)]);
      return { kind: "roster", resource, rows: roster.members };
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404)
        return { kind: "missing", message: `No resource ${id}: it was deleted, or the id is wrong.` };
      throw error;
    }
  }
  if (place.startsWith("user:")) {
    const id = place.slice("user:".length);
    const [user, audit] = await Promise.all([
      client.getUser(id),
      client.listAudit({ userId: id, limit: USER_EVENTS }),
    ]);
    return { kind: "user", user, events: audit.events };
  }
  const list = LISTERS[place];
  if (!list) throw new Error(`no list for ${place}`);
  const rows: unknown[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await list(client, { ...query, limit: PAGE_LIMIT, cursor });
    rows.push(...page.rows);
    if (!page.nextCursor || rows.length >= minRows)
      return { kind: "list", rows, nextCursor: page.nextCursor };
    cursor = page.nextCursor;
  }
}

export interface AdminDataOptions {
  resyncMs?: number;
  throttleMs?: number;
  /** Not re-listed by events or timers (only by refresh). */
  frozen?: boolean;
  /** Sees every event of the stream (after it has scheduled the re-list), e.g. to alert the operator. */
  onEvent?: (event: AdminEvent) => void;
}

export function useAdminData(client: AdminClient, key: string, options: AdminDataOptions = {}): AdminData {
  const resyncMs = options.resyncMs ?? 30_000;
  const throttleMs = options.throttleMs ?? 100;
  const [cache, setCache] = useState<Record<string, Loaded>>({});
  const [fetchState, setFetchState] = useState<Connection>({ ok: null, error: null, retryAt: null });
  const [stream, setStream] = useState<StreamStatus | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);

  const keyRef = useRef(key);
  keyRef.current = key;
  const frozen = useRef(options.frozen ?? false);
  frozen.current = options.frozen ?? false;
  const cacheRef = useRef(cache);
  cacheRef.current = cache;
  const alive = useRef(true);
  const inFlight = useRef(false);
  const again = useRef(false);
  const attempt = useRef(0);
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const throttleTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const subscription = useRef<Subscription | undefined>(undefined);
  const dead = useRef(false);

  const store = useCallback((key: string, data: ViewData) => {
    setCache((c) => ({ ...c, [key]: { data, at: Date.now() } }));
  }, []);

  const fail = useCallback((error: unknown, retry: () => void) => {
    if (isRefusal(error)) {
      dead.current = true;
      setFatal(error.code);
      return;
    }
    const delay = backoffDelay(attempt.current);
    attempt.current += 1;
    setFetchState({ ok: false, error: describeError(error), retryAt: Date.now() + delay });
    retryTimer.current = setTimeout(retry, delay);
  }, []);

  const load = useCallback(
    async (force = false): Promise<void> => {
      if (dead.current) return;
      const key = keyRef.current;
      if (!force && frozen.current && cacheRef.current[key]) return;
      if (inFlight.current) {
        again.current = true;
        return;
      }
      inFlight.current = true;
      clearTimeout(retryTimer.current);
      try {
        const previous = cacheRef.current[key]?.data;
        const data = await fetchView(client, key, previous?.kind === "list" ? previous.rows.length : 0);
        if (!alive.current) return;
        attempt.current = 0;
        store(key, data);
        setFetchState({ ok: true, error: null, retryAt: null });
      } catch (error) {
        if (alive.current) fail(error, () => void load());
      } finally {
        inFlight.current = false;
        if (again.current && alive.current) {
          again.current = false;
          void load();
        }
      }
    },
    [client, store, fail],
  );

  const loadMore = useCallback(async () => {
    const key = keyRef.current;
    const loaded = cacheRef.current[key]?.data;
    const list = LISTERS[splitKey(key).place];
    if (dead.current || inFlight.current || loaded?.kind !== "list" || !loaded.nextCursor || !list) return;
    inFlight.current = true;
    try {
      const page = await list(client, {
        ...splitKey(key).query,
        limit: PAGE_LIMIT,
        cursor: loaded.nextCursor,
      });
      if (alive.current)
        store(key, { kind: "list", rows: [...loaded.rows, ...page.rows], nextCursor: page.nextCursor });
    } catch (error) {
      if (alive.current) fail(error, () => void load());
    } finally {
      inFlight.current = false;
      if (again.current && alive.current) {
        again.current = false;
        void load();
      }
    }
  }, [client, store, fail, load]);

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
    void load(true);
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
    const sub = client.subscribe(seen, (status) => {
      if (!alive.current) return;
      if (status.state === "refused") {
        dead.current = true;
        setFatal(status.error);
        return;
      }
      setStream(status);
      if (status.state === "open") void load();
    });
    subscription.current = sub;
    return () => sub.close();
  }, [client, invalidate, load]);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      clearTimeout(retryTimer.current);
      clearTimeout(throttleTimer.current);
    };
  }, []);

  const refresh = useCallback(() => {
    attempt.current = 0;
    subscription.current?.reconnect();
    void load(true);
  }, [load]);

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
  return { loaded: cache[key], connection, fatal, refresh, loadMore: () => void loadMore() };
}
