/**
 * The operator's views and actions end to end: the real TUI in tmux against a real gateway and the
 * development provider, users signed in through the browser flow and acting through the public API.
 * A user's detail after a sign-in and revoking all their sessions (their cookies are signed out), the
 * Events screen receiving an event with no key pressed, a role change and a removal from a roster (the
 * public API then shows them), sorting, paging through 250 resources, OSC 52 copy, `--readonly`
 * refusing `x`, a wrong token exiting 2, and deleting a user (`D`) with the heir named first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CSRF, type Stack, signIn, startStack } from "../helpers/stack.ts";
import { hasTmux, Tmux } from "./tmux-kit.ts";

const TOKEN = "test-admin-token";
const tmux = new Tmux();
let stack: Stack;
const cookies: Record<string, string> = {};

async function as(user: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { cookie: cookies[user]!, ...CSRF },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
async function login(user: string): Promise<string> {
  const { browser } = await signIn(stack, user);
  const cookie = browser.cookieHeader(stack.url);
  cookies[user] = cookie;
  return cookie;
}
const admin = async (path: string) =>
  (await fetch(`${stack.adminUrl}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as any;
const tui = (name: string, extra = "") =>
  tmux.start(name, `--url ${stack.adminUrl} --token ${TOKEN} ${extra}`);

beforeAll(async () => {
  if (!hasTmux) return;
  stack = await startStack();
  for (const user of ["olivia", "bob"]) await login(user);
}, 60_000);
afterAll(async () => {
  if (!hasTmux) return;
  await tmux.kill();
  await stack.stop();
}, 30_000);

describe.skipIf(!hasTmux)("the operator TUI against a real gateway", () => {
  test(":user shows a user after sign-in; X revokes all their sessions and signs their cookies out", async () => {
    const first = await login("ops-user");
    const second = (await signIn(stack, "ops-user")).browser.cookieHeader(stack.url);
    await tui("user");
    await tmux.waitFor("user", / CONNECTED/);
    await tmux.command("user", "user ops-user");
    let screen = await tmux.waitFor("user", /Recent events \d+/);
    expect(screen).toContain("User ops-user · welcome credit granted · balance $5.00");
    expect(screen).toContain("Sessions 2");
    expect(screen).toMatch(/test +_app +test +writer +active/); // the app resource joined at consent
    expect(screen).toMatch(/consent\.accepted .* welcomeMicro/); // the welcome credit
    expect(screen).toContain("session.created");

    await tmux.key("user", "X");
    await tmux.waitFor("user", /Revoke all 2 sessions of ops-user\? They are signed out everywhere\./);
    await tmux.key("user", "y");
    screen = await tmux.waitFor("user", /Revoked 2 sessions of ops-user\./);
    await tmux.waitFor("user", /no live session/);
    for (const cookie of [first, second]) {
      const report = await fetch(`${stack.url}/auth/session`, { headers: { cookie } });
      expect(await report.json()).toEqual({ authenticated: false, reason: "revoked" });
    }
    expect((await admin("/admin/v1/sessions?userId=ops-user")).sessions).toEqual([]);
    await tmux.waitFor("user", /session\.ended/); // the user's own events say so
    await tmux.key("user", "q");
    await tmux.waitFor("user", /EXITED:0/);
  }, 60_000);

  test("Events: a new event arrives with no key pressed; p holds the list and counts", async () => {
    await tui("events");
    await tmux.key("events", "5");
    await tmux.waitFor("events", /Events · live/);
    const { body } = await as("olivia", "POST", "/v1/resources", { type: "team", name: "Live team" });
    const tail = body.id.slice(-12);
    await tmux.waitFor("events", new RegExp(`resource\\.created +olivia +\\S*${tail}`));
    await tmux.key("events", "p");
    await tmux.waitFor("events", /Events · PAUSED \(p resumes\)/);
    await as("olivia", "POST", `/v1/resources/${body.id}/invite`, { userId: "bob", role: "reader" });
    await tmux.waitFor("events", /PAUSED · 1 new/);
    expect(await tmux.screen("events")).not.toContain("member.invited");
    await tmux.key("events", "p");
    await tmux.waitFor("events", /member\.invited +bob/);
    // Enter on the event opens its resource's roster, with the invite pending.
    await tmux.key("events", "g");
    await tmux.key("events", "Enter");
    await tmux.waitFor("events", /Resources › Live team › members 1 active · 1 pending/);
  }, 60_000);

  test("roster: e changes bob's role, x removes him; the public API shows both", async () => {
    const { body: team } = await as("olivia", "POST", "/v1/resources", { type: "team", name: "Ops team" });
    await as("olivia", "POST", `/v1/resources/${team.id}/invite`, { userId: "bob", role: "writer" });
    await as("bob", "POST", `/v1/resources/${team.id}/accept`);
    await tui("roster");
    await tmux.waitFor("roster", / CONNECTED/);
    await tmux.command("roster", `resource ${team.id}`);
    await tmux.waitFor("roster", /Resources › Ops team › members 2 active · 0 pending/);
    await tmux.key("roster", "j");
    await tmux.waitFor("roster", /^> bob +writer +active/m);
    await tmux.key("roster", "e");
    await tmux.waitFor("roster", /New role for bob in Ops team \(now writer\)/);
    await tmux.key("roster", "a");
    await tmux.waitFor("roster", /Change bob's role in Ops team from writer to admin\?/);
    await tmux.key("roster", "y");
    await tmux.waitFor("roster", /^> bob +admin +active/m);
    const members = await as("olivia", "GET", `/v1/resources/${team.id}/members`);
    expect(members.body.members.find((m: { userId: string }) => m.userId === "bob")).toMatchObject({
      role: "admin",
    });

    await tmux.key("roster", "x");
    await tmux.waitFor("roster", /Remove bob \(admin\) from Ops team\?/);
    await tmux.key("roster", "y");
    await tmux.waitFor("roster", /Removed bob from Ops team\./);
    await tmux.waitFor("roster", /1 active · 0 pending/);
    const after = await as("olivia", "GET", `/v1/resources/${team.id}/members`);
    expect(after.body.members.map((m: { userId: string }) => m.userId)).toEqual(["olivia"]);
    expect((await as("bob", "GET", `/v1/resources/${team.id}`)).status).toBe(404);
    const audit = await admin(`/admin/v1/audit?resourceId=${team.id}&limit=2`);
    expect(audit.events.map((e: { type: string; actor: string }) => [e.type, e.actor])).toEqual([
      ["member.removed", "admin"],
      ["member.role_changed", "admin"],
    ]);
  }, 60_000);

  test("sorting, and paging through 250 resources to the oldest", async () => {
    for (let i = 1; i <= 250; i++) {
      const name = `Bulk ${String(i).padStart(3, "0")}`;
      expect((await as("bob", "POST", "/v1/resources", { type: "album", name })).status).toBe(200);
    }
    const total = (await admin("/admin/v1/overview")).resources;
    expect(total).toBeGreaterThan(250);
    await tui("pages");
    await tmux.key("pages", "4");
    await tmux.waitFor("pages", /Resources 100 loaded, more on the server/);
    await tmux.waitFor("pages", /^> \S+ +Bulk 250 /m);
    // G goes to the last loaded row, which loads the next page; once all are loaded it reaches the oldest.
    // Each G is retried until the selection sits on the last row of everything.
    const atTheEnd = new RegExp(`Resources ${total}\\s[\\s\\S]*^> \\S+ +test +_app `, "m");
    let last: string | undefined;
    for (let tries = 0; tries < 12 && last === undefined; tries++) {
      await tmux.key("pages", "G");
      last = await tmux.waitFor("pages", atTheEnd, 1500).catch(() => undefined);
    }
    expect(last).toBeDefined();
    expect(last).not.toContain("more on the server");

    // Sort by NAME: s walks ID, then NAME; the header and title say so.
    await tmux.key("pages", "s");
    await tmux.waitFor("pages", /by ID ↑/);
    await tmux.key("pages", "s");
    await tmux.waitFor("pages", /by NAME ↑[\s\S]*^> \S+ +test /m); // the selection stays on its row
    await tmux.key("pages", "g");
    const sorted = await tmux.waitFor("pages", /^> \S+ +Bulk 001 /m);
    expect(sorted).toMatch(/NAME↑/);
    const names = [...sorted.matchAll(/^[> ] \S+ +(Bulk \d{3}) /gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(5);
    expect(names).toEqual([...names].sort());
    await tmux.key("pages", "S");
    await tmux.waitFor("pages", /by NAME ↓[\s\S]*^> \S+ +Bulk 001 /m);
    await tmux.key("pages", "g");
    await tmux.waitFor("pages", /^> \S+ +test +_app /m); // "test" sorts after "Ops team" and "Live team"
  }, 120_000);

  test("c copies the selected session's id over OSC 52", async () => {
    await tui("copy");
    await tmux.key("copy", "2");
    const screen = await tmux.waitFor("copy", /^> \S+ +\S+ +test-web /m);
    const shown = /^> (\S+) /m.exec(screen)![1]!;
    const sessions = (await admin("/admin/v1/sessions")).sessions as Array<{ id: string }>;
    expect(sessions.map((s) => s.id)).toContain(shown); // the whole id is on screen at 100 columns
    await tmux.key("copy", "c");
    await tmux.waitFor("copy", new RegExp(`Copied ${shown} to the clipboard \\(OSC 52\\)\\.`));
    expect(await tmux.run("show-buffer")).toBe(shown);
  }, 60_000);

  test("--readonly refuses x: nothing is asked, nothing is revoked", async () => {
    const before = (await admin("/admin/v1/sessions")).sessions.length;
    await tui("ro", "--readonly");
    await tmux.waitFor("ro", /read-only/);
    await tmux.key("ro", "2");
    await tmux.waitFor("ro", /READ-ONLY/);
    await tmux.key("ro", "x");
    const screen = await tmux.waitFor("ro", /Read-only \(--readonly\): "x" changes nothing here\./);
    expect(screen).not.toContain("Revoke session");
    expect((await admin("/admin/v1/sessions")).sessions.length).toBe(before);
  }, 60_000);

  test("a wrong token: one line, exit 2, no retry", async () => {
    await tmux.start("wrong", `--url ${stack.adminUrl} --token not-the-token`, { columns: 160 });
    const screen = await tmux.waitFor("wrong", /EXITED:2/);
    expect(screen).toContain(
      `gateway tui: the admin API at ${stack.adminUrl} refused the token (unauthenticated): check --token`,
    );
    expect(screen).not.toContain("loading");
  }, 60_000);

  test("D deletes a user: the confirmation names the heir and what goes; the public API then shows it", async () => {
    await login("leaver");
    await login("heir");
    const kept = (await as("leaver", "POST", "/v1/resources", { type: "team", name: "Kept team" })).body;
    const solo = (await as("leaver", "POST", "/v1/resources", { type: "team", name: "Solo team" })).body;
    expect((await as("leaver", "POST", `/v1/resources/${kept.id}/invite`, { userId: "heir" })).status).toBe(
      200,
    );
    expect((await as("heir", "POST", `/v1/resources/${kept.id}/accept`)).status).toBe(200);
    await tui("delete");
    await tmux.waitFor("delete", / CONNECTED/);
    await tmux.command("delete", "user leaver");
    await tmux.waitFor("delete", /Memberships \d+/);
    await tmux.key("delete", "D");
    const asked = (await tmux.waitFor("delete", /Delete user leaver\?/)).replace(/[│\s]+/g, " ");
    expect(asked).toContain("It passes Kept team to heir; deletes Solo team; it ends their memberships");
    await tmux.key("delete", "y");
    await tmux.waitFor("delete", /Deleted user leaver: 1 resource passed on, 1 deleted\./);
    expect((await as("heir", "GET", `/v1/resources/${kept.id}/members`)).body.members).toEqual([
      { userId: "heir", role: "owner", state: "active" },
    ]);
    expect((await as("heir", "GET", `/v1/resources/${solo.id}`)).status).toBe(404);
    const gone = await as("leaver", "GET", "/v1/me");
    expect(gone.status).toBe(403);
    expect(gone.body.code).toBe("account_deleted");
  });
});
