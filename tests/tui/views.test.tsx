/**
 * The TUI's detail views and actions, frames asserted with ink-testing-library against a scriptable
 * client: a user's detail (reached from a session, a roster row or `:user`), revoking one or all of
 * their sessions; the Events screen (live without a key, paused with p, filtered, jumping to a resource
 * or user); the roster's role change and removal; the `:` command line.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/app.tsx";
import { fakeClient, KEY, press, session, waitFor } from "./fake-client.ts";

afterEach(() => cleanup());

function mount(fake = fakeClient(), props: Partial<Parameters<typeof App>[0]> = {}) {
  const ui = render(<App client={fake.client} size={{ columns: 100, rows: 30 }} {...props} />);
  return { ...ui, fake, frame: (p: (f: string) => boolean, ms?: number) => waitFor(ui.lastFrame, p, ms) };
}

async function type(stdin: { write(data: string): void }, text: string) {
  for (const ch of text) await press(stdin, ch);
}

describe("a user's detail", () => {
  test("enter on a session opens its user: credit, balance, sessions, memberships, recent events; esc goes back", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("> s1"));
    await press(stdin, KEY.enter);
    const f = await frame((f) => f.includes("Recent events 2"));
    expect(f).toContain("User alice · welcome credit granted · balance $5.00");
    expect(f).toContain("Sessions 1");
    expect(f).toMatch(/> s1 +web/);
    expect(f).toContain("Memberships 1");
    expect(f).toMatch(/Team Alpha +team +app1 +owner +active/);
    expect(f).toMatch(/member\.invited +r1 +alice +role=writer/);
    expect(fake.calls).toContain("user:alice");
    expect(fake.calls).toContain("audit?userId=alice");
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("[2 Sessions]") && f.includes("> s1") && !f.includes("Recent events"));
  });

  test("x revokes the selected session, X all of the user's sessions, each behind a confirmation", async () => {
    const fake = fakeClient();
    fake.state.sessions.push(session("s4", "alice"), session("s5", "alice"));
    const { stdin, frame } = mount(fake);
    await type(stdin, ":user alice");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("Sessions 3") && f.includes("> s1"));
    await press(stdin, "j");
    await press(stdin, "x");
    await frame((f) => f.includes("Revoke session s4 (user alice, client web)?"));
    await press(stdin, "y");
    await frame((f) => f.includes("Revoked session s4.") && f.includes("Sessions 2"));
    expect(fake.calls).toContain("revoke:s4");

    await press(stdin, "X");
    await frame((f) => f.includes("Revoke all 2 sessions of alice? They are signed out everywhere."));
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("Cancelled: nothing changed"));
    expect(fake.calls.filter((c) => c.startsWith("revokeAll"))).toEqual([]);
    await press(stdin, "X");
    await press(stdin, "y");
    await frame((f) => f.includes("Revoked 2 sessions of alice.") && f.includes("no live session"));
    expect(fake.calls).toContain("revokeAll:alice");
    expect(fake.state.sessions.map((s) => s.userId)).toEqual(["bob", "carol"]);
    // Nothing left to revoke: X offers nothing.
    await press(stdin, "X");
    expect(fake.calls.filter((c) => c.startsWith("revokeAll")).length).toBe(1);
  });

  test("D deletes the user behind a confirmation naming what passes on and what goes; --readonly refuses it", async () => {
    const fake = fakeClient();
    fake.state.members.r2!.push({
      userId: "alice",
      role: "admin",
      state: "active",
      since: "2026-01-01T00:00:00.000Z",
    });
    fake.state.resources.push({ ...fake.state.resources[0]!, id: "r3", name: "Solo Board", type: "board" });
    fake.state.members.r3 = [
      { userId: "alice", role: "owner", state: "active", since: "2026-01-01T00:00:00.000Z" },
    ];
    const { stdin, frame } = mount(fake);
    await type(stdin, ":user alice");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("Memberships 3"));
    await press(stdin, "D");
    const asked = await frame((f) => f.includes("Delete user alice?"));
    expect(asked.replace(/[│\s]+/g, " ")).toContain(
      "Delete user alice? It passes Team Alpha to bob; deletes Solo Board; it ends their memberships and sessions. There is no undo.",
    );
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("Cancelled: nothing changed"));
    expect(fake.calls.filter((c) => c.startsWith("deleteUser"))).toEqual([]);
    await press(stdin, "D");
    await press(stdin, "y");
    await frame((f) => f.includes("Deleted user alice: 1 resource passed on, 1 deleted."));
    expect(fake.calls).toContain("deleteUser:alice");
    expect(fake.state.members.r1!.find((m) => m.userId === "bob")?.role).toBe("owner");
    expect(fake.state.resources.map((r) => r.id)).not.toContain("r3");
    expect(fake.state.members.r2!.map((m) => m.userId)).not.toContain("alice");

    const readonly = mount(fakeClient(), { readonly: true });
    await type(readonly.stdin, ":user alice");
    await press(readonly.stdin, KEY.enter);
    await readonly.frame((f) => f.includes("Memberships 1"));
    await press(readonly.stdin, "D");
    await readonly.frame((f) => f.includes('Read-only (--readonly): "D" changes nothing here.'));
    expect(readonly.fake.calls.filter((c) => c.startsWith("deleteUser"))).toEqual([]);
  });

  test("enter on a membership opens its roster; a roster row opens its user", async () => {
    const { stdin, frame } = mount();
    await type(stdin, ":user alice");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("Memberships 1"));
    await press(stdin, "j"); // the membership
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("Resources › Team Alpha › members"));
    await press(stdin, "j"); // bob
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("User bob · welcome credit not granted · balance $0.00"));
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("Resources › Team Alpha › members") && f.includes("> bob"));
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("User alice"));
  });
});

describe("the Events screen", () => {
  test("newest first; a new event shows without a key press; p pauses and counts, p resumes", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "5");
    let f = await frame((f) => f.includes("Events · live 3"));
    expect(f.indexOf("member.invited")).toBeLessThan(f.indexOf("session.created"));
    fake.emit("member.removed", { actor: "admin", userId: "bob", resourceId: "r1", data: { was: "active" } });
    f = await frame((f) => f.includes("member.removed"));
    expect(f.indexOf("member.removed")).toBeLessThan(f.indexOf("member.invited"));
    expect(f).toContain("was=active");

    await press(stdin, "p");
    await frame((f) => f.includes("Events · PAUSED (p resumes)"));
    fake.emit("resource.deleted", { actor: "zoe", resourceId: "r2" });
    fake.emit("session.ended", { userId: "carol" });
    f = await frame((f) => f.includes("PAUSED · 2 new"));
    expect(f).not.toContain("resource.deleted");
    await press(stdin, " ");
    f = await frame((f) => f.includes("Events · live") && f.includes("resource.deleted"));
    expect(f).toContain("session.ended");
  });

  test("filter by type, user or resource; the kept filter asks the server", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "5");
    await frame((f) => f.includes("Events · live 3"));
    await press(stdin, "/");
    await type(stdin, "type:resource");
    let f = await frame((f) => f.includes("1 of 3"));
    expect(f).toContain("resource.created");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("filter: type:resource (esc clears)"));
    await waitFor(
      () => fake.calls.join(" "),
      (calls) => calls.includes("audit?query=resource"),
    );
    await press(stdin, KEY.esc);
    await press(stdin, "/");
    await type(stdin, "user:alice");
    f = await frame((f) => f.includes("2 of 3"));
    expect(f).not.toContain("resource.created");
  });

  test("enter opens the event's resource, u its user", async () => {
    const { stdin, frame } = mount();
    await press(stdin, "5");
    await frame((f) => /> .*member\.invited/.test(f));
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("Resources › Team Alpha › members"));
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("Events · live"));
    await press(stdin, "u");
    await frame((f) => f.includes("User dave"));
  });
});

describe("roster actions", () => {
  async function openTeamAlpha() {
    const m = mount();
    await type(m.stdin, ":resource r1");
    await press(m.stdin, KEY.enter);
    await m.frame((f) => f.includes("Resources › Team Alpha › members 2 active · 1 pending"));
    return m;
  }

  test("e changes an active member's role behind a confirmation; the roster shows it", async () => {
    const { stdin, frame, fake } = await openTeamAlpha();
    await press(stdin, "j"); // bob, writer
    await press(stdin, "e");
    await frame((f) => f.includes("New role for bob in Team Alpha (now writer):") && f.includes("a admin"));
    await press(stdin, "w");
    await frame((f) => f.includes("bob is already writer: nothing to change."));
    await press(stdin, "e");
    await press(stdin, "a");
    await frame((f) => f.includes("Change bob's role in Team Alpha from writer to admin?"));
    await press(stdin, "n");
    await frame((f) => f.includes("Cancelled: nothing changed"));
    expect(fake.calls.filter((c) => c.startsWith("setRole"))).toEqual([]);
    await press(stdin, "e");
    await press(stdin, "a");
    await press(stdin, "y");
    const f = await frame((f) => f.includes("bob is now admin in Team Alpha."));
    await frame((f) => /> bob +admin +active/.test(f));
    expect(fake.calls).toContain("setRole:r1:bob:admin");
    expect(f).toContain("Resources › Team Alpha");
  });

  test("the owner's role and a pending user's role do not change; e says why", async () => {
    const { stdin, frame, fake } = await openTeamAlpha();
    await press(stdin, "e"); // alice, the owner
    await frame((f) => f.includes("The owner's role never changes, and the owner cannot be removed."));
    await press(stdin, "x");
    await press(stdin, "G"); // dave, invited
    await press(stdin, "e");
    await frame((f) => f.includes("dave is invited, not a member yet"));
    expect(fake.calls.filter((c) => c.startsWith("setRole") || c.startsWith("remove"))).toEqual([]);
  });

  test("x removes an active member, or withdraws a pending invite", async () => {
    const { stdin, frame, fake } = await openTeamAlpha();
    await press(stdin, "j");
    await press(stdin, "x");
    await frame((f) =>
      f.includes("Remove bob (writer) from Team Alpha? Their rows follow each table's onMemberRemove."),
    );
    await press(stdin, "y");
    await frame((f) => f.includes("Removed bob from Team Alpha.") && f.includes("1 active · 1 pending"));
    expect(fake.calls).toContain("remove:r1:bob");
    await press(stdin, "G");
    await press(stdin, "x");
    await frame((f) => f.includes("Withdraw the invite of dave to Team Alpha?"));
    await press(stdin, "y");
    await frame(
      (f) => f.includes("Withdrew the invite of dave to Team Alpha.") && f.includes("1 active · 0 pending"),
    );
    expect(fake.calls).toContain("cancel:r1:dave");
  });

  test("a resource that is not there is said, not retried", async () => {
    const { stdin, frame } = mount();
    await type(stdin, ":resource gone-id");
    await press(stdin, KEY.enter);
    const f = await frame((f) => f.includes("No resource gone-id: it was deleted, or the id is wrong."));
    expect(f).toContain("CONNECTED");
    expect(f).not.toContain("DISCONNECTED");
  });
});

describe("the : command line", () => {
  test("screens by name or unique prefix, tab completes, :user and :resource open, errors are said", async () => {
    const { stdin, frame } = mount();
    await frame((f) => f.includes("Sessions active"));
    await press(stdin, ":");
    await frame((f) => f.includes(":_") && f.includes("tab completes"));
    await type(stdin, "ev");
    await press(stdin, KEY.tab);
    await frame((f) => f.includes(":events_"));
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("[5 Events]") && f.includes("Events · live"));

    await type(stdin, ":res");
    await press(stdin, KEY.tab);
    await frame((f) => f.includes(":resource_") && f.includes("resources  resource"));
    await type(stdin, " r2");
    await press(stdin, KEY.enter);
    let f = await frame((f) => f.includes("Resources › Beta Club › members"));
    expect(f).not.toContain("resources  resource"); // tab's choices leave with the command line

    await type(stdin, ":pend");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes("[3 Pending]"));
    await type(stdin, ":nope");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes('Unknown command ":nope"'));
    await type(stdin, ":user");
    await press(stdin, KEY.enter);
    await frame((f) => f.includes(":user needs an id"));
    await type(stdin, ":sess");
    await press(stdin, KEY.esc);
    f = await frame((f) => !f.includes(":sess"));
    expect(f).toContain("[3 Pending]");
  });
});
