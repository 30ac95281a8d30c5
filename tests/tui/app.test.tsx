import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/app.tsx";
import { fakeClient, KEY, press, session, waitFor } from "./fake-client.ts";

afterEach(() => cleanup());

function mount(fake = fakeClient(), props: Partial<Parameters<typeof App>[0]> = {}) {
  const ui = render(<App client={fake.client} size={{ columns: 100, rows: 30 }} {...props} />);
  return { ...ui, fake, frame: (p: (f: string) => boolean, ms?: number) => waitFor(ui.lastFrame, p, ms) };
}

describe("navigation", () => {
  test("starts on the overview with the gateway URL and connection state", async () => {
    const { frame } = mount();
    const f = await frame((f) => f.includes("Sessions active") && f.includes("CONNECTED"));
    expect(f).toContain("http://fake-gateway:8788");
    expect(f).toContain("[1 Overview]");
    expect(f).toContain("1h 2m");
    expect(f).toMatch(/updated \d+s ago/);
  });

  test("tab and 1-5 switch screens; shift-tab goes back", async () => {
    const { stdin, frame } = mount();
    await frame((f) => f.includes("Sessions active"));
    await press(stdin, KEY.tab);
    await frame((f) => f.includes("[2 Sessions]") && f.includes("carol"));
    await press(stdin, "3");
    await frame((f) => f.includes("[3 Pending]") && f.includes("Team Alpha") && f.includes("requested"));
    await press(stdin, "4");
    await frame((f) => f.includes("[4 Resources]") && f.includes("Beta Club"));
    await press(stdin, KEY.tab);
    await frame((f) => f.includes("[5 Events]") && f.includes("member.invited"));
    await press(stdin, KEY.tab);
    await frame((f) => f.includes("[1 Overview]"));
    await press(stdin, KEY.backtab);
    await frame((f) => f.includes("[5 Events]"));
    await press(stdin, "1");
    await frame((f) => f.includes("[1 Overview]") && f.includes("Sessions active"));
  });

  test("j/k and arrows move; several keys in one write each count", async () => {
    const fake = fakeClient();
    fake.state.sessions = ["s1", "s2", "s3", "s4", "s5"].map((id) => session(id));
    const { stdin, frame } = mount(fake);
    await press(stdin, "2");
    await frame((f) => f.includes("> s1"));
    await press(stdin, "j");
    await frame((f) => f.includes("> s2"));
    await press(stdin, "jj");
    await frame((f) => f.includes("> s4"));
    await press(stdin, "k");
    await frame((f) => f.includes("> s3"));
    await press(stdin, KEY.down);
    await frame((f) => f.includes("> s4"));
    await press(stdin, KEY.up);
    await frame((f) => f.includes("> s3"));
    await press(stdin, "jjjjjjj");
    await frame((f) => f.includes("> s5"));
    await press(stdin, "g");
    await frame((f) => f.includes("> s1"));
  });

  test("/ filters by typed text, enter keeps it, esc clears it", async () => {
    const { stdin, frame, lastFrame } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("carol"));
    await press(stdin, "/");
    await frame((f) => f.includes("filter: /_"));
    for (const ch of "bo") await press(stdin, ch);
    let f = await frame((f) => f.includes("filter: /bo_") && !f.includes("carol"));
    expect(f).toContain("bob");
    expect(f).toContain("1 of 3");
    await press(stdin, "b"); // "bob"
    await press(stdin, KEY.backspace);
    await frame((f) => f.includes("filter: /bo_"));
    await press(stdin, KEY.enter);
    f = await frame((f) => f.includes("filter: bo (esc clears)"));
    expect(f).not.toContain("alice");
    await press(stdin, "j"); // navigation again, not typing
    expect(lastFrame()).toContain("filter: bo (esc clears)");
    await press(stdin, KEY.esc);
    f = await frame((f) => f.includes("carol") && f.includes("alice"));
    expect(f).not.toContain("filter:");
  });

  test("enter drills into a resource's roster and esc comes back", async () => {
    const { stdin, frame, fake } = mount();
    await press(stdin, "4");
    await frame((f) => /> r1 +Team Alpha/.test(f));
    await press(stdin, "j");
    await frame((f) => /> r2 +Beta Club/.test(f));
    await press(stdin, KEY.enter);
    const f = await frame((f) => f.includes("Beta Club › members") && f.includes("zoe"));
    expect(f).toContain("owner");
    expect(fake.calls).toContain("members:r2");
    await press(stdin, KEY.esc);
    await frame((f) => /> r2 +Beta Club/.test(f) && !f.includes("› members"));
  });

  test("? shows help and esc closes it", async () => {
    const { stdin, frame } = mount();
    await frame((f) => f.includes("Sessions active"));
    await press(stdin, "?");
    const f = await frame((f) => f.includes("Help"));
    expect(f).toContain("revoke · withdraw invite · decline request · remove member");
    await press(stdin, KEY.esc);
    await frame((f) => f.includes("Sessions active") && !f.includes("Help"));
  });

  test("a terminal below 60x15 gets a clear message", async () => {
    const { frame } = mount(fakeClient(), { size: { columns: 50, rows: 12 } });
    await frame((f) => f.includes("terminal too small: need 60x15, have 50x12"));
  });

  test("the frame fits in 80x24", async () => {
    const fake = fakeClient();
    fake.state.sessions = Array.from({ length: 40 }, (_, i) => session(`s${i}`));
    const { stdin, frame } = mount(fake, { size: { columns: 80, rows: 24 } });
    await press(stdin, "2");
    const f = await frame((f) => f.includes("> s0"));
    const lines = f.split("\n");
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toContain("q quit");
  });
});

describe("alerts", () => {
  test("a refresh token reuse event flashes on any screen", async () => {
    const { frame, fake } = mount();
    await frame((f) => f.includes("Sessions active"));
    fake.emit("session.reuse_detected", {
      userId: "mallory-victim",
      data: { sessionId: "s-stolen", clientId: "web", reason: "refresh_reuse" },
    });
    const f = await frame((f) => f.includes("Refresh token reuse"));
    expect(f).toContain("s-stolen");
    expect(f).toContain("mallory-victim");
  });
});
