/**
 * The export's audit events: every event whose subject or actor is the user, oldest first, read a page
 * at a time (PAGE rows at most per statement, through the `events_user` and `events_actor` indexes,
 * keyset on the id), with a turn of the event loop between pages. A user with a million events is
 * exported without any statement reading them all, and other requests are served between pages.
 *
 * In the user's own export (a `scope`) only the caller's app is shown, as every /v1 route shows it: an
 * event about a resource of that app (one about a resource that no longer exists cannot be placed, so
 * only the operator's export has it), or a session or consent event of one of the app's clients; an
 * event about neither (the welcome credit) is the user's own. Other users' ids inside an event's data
 * (a previous owner, a replaced offer, a deleted owner's pseudonym) are left out: the caller may no
 * longer be able to read them through the API. The operator's export (no scope) has everything.
 */
import type { Storage } from "../db/sql.ts";
import { type AppEventRow, userEventsPage } from "../events/reads.ts";
import type { UserExport } from "./model.ts";

export type ExportedEvent = UserExport["events"][number];

/** Which app's data the user's own export shows (absent: the operator's export, every app). */
export interface ExportScope {
  appId: string;
  /** The app a client id belongs to. */
  appOf(clientId: string): string;
}

/** Rows per statement. */
export const EVENTS_PAGE = 500;

/** Keys of event data that hold another user's id. */
const USER_ID_KEYS = ["previousOwner", "replaces", "from"];

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The user's events, page by page. `sessionClients` maps the user's session ids to their clients (a
 * refresh event names its session only).
 */
export async function* exportEvents(
  storage: Storage,
  userId: string,
  sessionClients: ReadonlyMap<string, string>,
  scope?: ExportScope,
): AsyncGenerator<ExportedEvent[]> {
  let after = 0;
  for (;;) {
    const rows = await userEventsPage(storage, userId, after, EVENTS_PAGE);
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.id);
    const page: ExportedEvent[] = [];
    for (const row of rows) {
      const data = parsed(row.data);
      if (scope && !inScope(row, data, sessionClients, scope)) continue;
      page.push({
        id: Number(row.id),
        type: row.type,
        actor: row.actor ?? null,
        resourceId: row.resourceId ?? null,
        userId: row.userId ?? null,
        data: scope ? withoutOthers(data, userId) : data,
        at: new Date(Number(row.at)).toISOString(),
      });
    }
    yield page;
    if (rows.length < EVENTS_PAGE) return;
    await nextTurn();
  }
}

function inScope(
  row: AppEventRow,
  data: unknown,
  sessionClients: ReadonlyMap<string, string>,
  scope: ExportScope,
): boolean {
  if (row.resourceId !== null) return row.appId === scope.appId;
  const fields = isRecord(data) ? data : {};
  if (typeof fields.clientId === "string") return scope.appOf(fields.clientId) === scope.appId;
  if (typeof fields.sessionId === "string") {
    // A session the database no longer has (purged 7 days after it ended) cannot be placed in an app:
    // left to the operator's export, like events of a resource that no longer exists.
    const clientId = sessionClients.get(fields.sessionId);
    return clientId !== undefined && scope.appOf(clientId) === scope.appId;
  }
  return true; // the account's own events (no resource, client or session): every app's export has them
}

function withoutOthers(data: unknown, userId: string): unknown {
  if (!isRecord(data) || !USER_ID_KEYS.some((key) => key in data)) return data;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data))
    if (!USER_ID_KEYS.includes(key) || value === userId) kept[key] = value;
  return kept;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Event data and link data are JSON text; anything else is given as it is. */
export function parsed(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
