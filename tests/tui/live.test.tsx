import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/app.tsx";
import { fakeClient, KEY, press, session, waitFor } from "./fake-client.ts";

afterEach(() => cleanup());

function mount(fake = fakeClient(), props: Partial<Parameters<typeof App>[0]> = {}) {
  const ui = render(<App client={fake.client} size={{ columns: 100, rows: 30 }} {...props} />);
  return { ...ui, fake, frame: (p: (f: string) => boolean, ms?: number) => waitFor(ui.lastFrame, p, ms) };
}

describe("confirmations (default: cancel)", () => {
  test("x asks; n, esc and enter cancel without calling the API; y revokes and re-lists", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("> s1"));
    for (const cancel of ["n", KEY.esc, KEY.enter]) {
      await press(stdin, "x");
      const f = await frame((f) => f.includes("Revoke session s1 (user alice, client web)?"));
      expect(f).toContain("n: cancel (default");
      expect(f).toContain("y confirm");
      await press(stdin, cancel);
      await frame((f) => f.includes("Cancelled: nothing changed") && !f.includes("Revoke session s1"));
    }
    expect(fake.calls.filter((c) => c.startsWith("revoke"))).toEqual([]);
    await press(stdin, "j"); // s2
    await press(stdin, "d");
    await frame((f) => f.includes("Revoke session s2"));
    await press(stdin, "y");
    const f = await frame((f) => f.includes("Revoked session s2.") && !f.includes(" s2 "));
    expect(fake.calls).toContain("revoke:s2");
    expect(f).toContain("> s3"); // the neighbour took over
  });

  test("x then y on Pending declines a request, in words apart from the confirmation's cancel", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "3");
    await frame((f) => f.includes("> invited"));
    await press(stdin, "j");
    await press(stdin, "x");
    await frame((f) => f.includes("Decline the request from erin for Beta Club?"));
    await press(stdin, "y");
    await frame(
      (f) => f.includes("Declined the request from erin for Beta Club.") && !f.includes("requested"),
    );
    expect(fake.calls).toContain("cancel:r2:erin");
  });

  test("a failed action says so", async () => {
    const fake = fakeClient();
    fake.client.revokeSession = async () => {
      throw new (await import("../../src/tui/errors.ts")).AdminApiError(404, "not_found", "gone");
    };
    const { stdin, frame } = mount(fake);
    await press(stdin, "2");
    await frame((f) => f.includes("> s1"));
    await press(stdin, "x");
    await frame((f) => f.includes("Revoke session s1"));
    await press(stdin, "y");
    await frame((f) =>
      f.includes("Failed: not_found. Revoke session s1 (user alice, client web): not done."),
    );
  });
});

describe("live data", () => {
  test("an event re-lists the screen without a key press", async () => {
    const { frame, fake, stdin } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("carol"));
    fake.state.sessions.unshift(session("s9", "zed"));
    fake.emit("session.created");
    await frame((f) => f.includes("zed"));
  });

  test("selection follows the row's id when rows are inserted above it", async () => {
    const { frame, fake, stdin } = mount();
    await press(stdin, "2");
    await press(stdin, "j");
    await frame((f) => f.includes("> s2"));
    fake.state.sessions.unshift(session("n1"), session("n2"));
    fake.emit();
    let f = await frame((f) => f.includes("n2"));
    expect(f).toContain("> s2");
    await press(stdin, "k");
    await frame((f) => f.includes("> s1"));
    await press(stdin, "j");
    // The selected row disappears: its neighbour is selected, and the flash says so.
    fake.state.sessions = fake.state.sessions.filter((s) => s.id !== "s2");
    fake.emit();
    f = await frame((f) => f.includes("The selected row is gone"));
    expect(f).toContain("> s3");
  });

  test("a failing gateway: DISCONNECTED with a retry countdown, the last rows kept, STALE; then recovery", async () => {
    const { frame, fake, stdin } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("carol") && f.includes("CONNECTED"));
    fake.state.down = true;
    await press(stdin, "r");
    let f = await frame((f) => f.includes("DISCONNECTED"));
    expect(f).toMatch(/DISCONNECTED · retry in \ds \(unreachable\)/);
    expect(f).toContain("carol");
    expect(f).toContain("STALE");
    fake.state.down = false;
    fake.status({ state: "open" }); // a reconnect re-lists
    f = await frame((f) => f.includes("CONNECTED") && !f.includes("DISCONNECTED") && !f.includes("STALE"));
    expect(f).toContain("carol");
  });

  test("a dropped event stream shows DISCONNECTED until it reconnects", async () => {
    const { frame, fake } = mount();
    await frame((f) => f.includes("CONNECTED"));
    fake.status({ state: "retrying", retryAt: Date.now() + 8000, attempt: 3, error: "unreachable" });
    await frame((f) => /DISCONNECTED · retry in [78]s/.test(f));
    fake.status({ state: "open" });
    await frame((f) => f.includes("CONNECTED") && !f.includes("DISCONNECTED"));
  });

  test("old data is marked STALE even while connected", async () => {
    const { frame } = mount(fakeClient(), { staleMs: 100 });
    const f = await frame((f) => f.includes("STALE"), 2500);
    expect(f).toContain("CONNECTED");
  });

  test("the safety-net re-list runs without events", async () => {
    const { frame, fake, stdin } = mount(fakeClient(), { resyncMs: 100 });
    await press(stdin, "2");
    await frame((f) => f.includes("carol"));
    fake.state.sessions.push(session("s4", "quiet"));
    await frame((f) => f.includes("quiet"));
  });
});
