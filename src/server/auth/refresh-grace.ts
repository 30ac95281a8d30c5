/**
 * Which rotated-away refresh token still gets the current session, and which is theft (a pure rule: the
 * refresher reads the row and the clock and asks here). A token the gateway rotated away never reaches
 * the provider (Hydra revokes the whole grant on reuse); the question is only whether its presenter gets
 * the current session or the session ends as stolen.
 *
 * - Only the session's immediately previous token can get the current session. An older one means its
 *   successor was itself presented and rotated: whoever still holds it is a copy.
 * - Within the grace (30 s) of the rotation, always: tabs racing one refresh.
 * - After it, for at most `lostAnswerMs` (10 minutes), while no request has presented the current token:
 *   the refresh answer was lost on its way (a phone losing signal), and its client retries with the
 *   token it still holds. Once the current token has been presented, the client that got the answer is
 *   using it, so the previous token in other hands is theft. A copy taken before the rotation and
 *   presented inside that window gets the session, as the lost answer's own client would: the two are
 *   the same request. The window bounds it, and the next presentation of either token settles it.
 */

export interface GraceState {
  previousRefreshHash: string | null;
  rotatedAt: number | null;
  /** When a request first presented the current token after the rotation; null: never yet. */
  currentSeenAt: number | null;
}

export interface GraceWindows {
  graceMs: number;
  lostAnswerMs: number;
}

export type OlderTokenVerdict = "current_session" | "theft";

export function olderTokenVerdict(
  row: GraceState,
  presentedHash: string,
  now: number,
  windows: GraceWindows,
): OlderTokenVerdict {
  if (row.rotatedAt === null || presentedHash !== row.previousRefreshHash) return "theft";
  const age = now - row.rotatedAt;
  if (age < windows.graceMs) return "current_session";
  if (row.currentSeenAt === null && age < windows.lostAnswerMs) return "current_session";
  return "theft";
}
