/**
 * The TUI's user view says why each of the user's sessions ended, read from a real gateway's admin API:
 * signed out, signed out from another device (the person's "sign out my other devices"), revoked by an
 * operator, and one that ran out; the live one stays under "Sessions".
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { buildAdminApp } from "../../src/server/app.ts";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { createAdminClient } from "../../src/tui/client.ts";
import { UserScreen, userItems } from "../../src/tui/user.tsx";
import { sql } from "../helpers/db.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";

const APPS: AppsFile = {
  apps: [{ id: "a", clients: [{ clientId: "a-web", redirectUris: ["http://127.0.0.1:5999/callback"] }] }],
};
let gw: InProcess;
let server: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  gw = await inProcess({ ADMIN_TOKEN: "tui-admin-token" }, APPS);
  const admin = buildAdminApp(gw.gateway);
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => admin.handle(request) });
});
afterAll(async () => {
  server.stop(true);
  await gw.gateway.close();
});

const idOf = async (headers: Record<string, string>) =>
  (await gw.gateway.sessions.resolve(headers.cookie ?? null))!.row.id;

test("each ended session is listed with why it ended", async () => {
  const user = "tui-ended";
  const current = await sessionFor(gw, user, "a-web");
  const other = await sessionFor(gw, user, "a-web");
  const signedOut = await sessionFor(gw, user, "a-web");
  const revoked = await sessionFor(gw, user, "a-web");
  const ranOut = await sessionFor(gw, user, "a-web");
  const [currentId, otherId, signedOutId, revokedId, ranOutId] = (await Promise.all(
    [current, other, signedOut, revoked, ranOut].map(idOf),
  )) as [string, string, string, string, string];
  await gw.gateway.sessions.end(signedOutId, "logout", user);
  await gw.gateway.sessions.revoke(revokedId, "admin");
  await sql(gw.gateway.storage).run("UPDATE sessions SET expires_at = 1 WHERE id = ?", ranOutId);
  const res = await gw.handle("/auth/sessions/revoke-others", { method: "POST", headers: current });
  expect(res.status).toBe(200);

  const client = createAdminClient({ url: `http://127.0.0.1:${server.port}`, token: "tui-admin-token" });
  const detail = await client.getUser(user);
  expect(detail.sessions.map((s) => s.id)).toEqual([currentId]);
  const reasons = Object.fromEntries((detail.endedSessions ?? []).map((s) => [s.id, s.reason]));
  expect(reasons).toEqual({
    [otherId]: "signed_out_elsewhere",
    [signedOutId]: "signed_out",
    [revokedId]: "revoked",
    [ranOutId]: "expired",
  });

  const ui = render(
    <UserScreen
      userId={user}
      user={detail}
      items={userItems(detail, [])}
      selected={0}
      filter=""
      editing={false}
      width={140}
      height={30}
    />,
  );
  const frame = ui.lastFrame() ?? "";
  ui.unmount();
  expect(frame).toContain("Ended sessions 4");
  for (const words of ["signed out from another device", "revoked by an operator", "expired", "signed out"])
    expect(frame).toContain(words);
});
