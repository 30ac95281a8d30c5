/**
 * The lists and the frame, with ink-testing-library: sorting by any column (shown in the header), paging
 * past 100 rows through the cursor, the kept filter searching the server, columns sized to their content,
 * ids and visibility words, OSC 52 copy, --readonly, a refused token, `r` reconnecting at once, ages that
 * tick without a refresh, a flash cleared by a screen change, and the help and footer fitting 80x24.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/app.tsx";
import { fakeClient, KEY, press, resource, session, waitFor } from "./fake-client.ts";

afterEach(() => cleanup());

function mount(fake = fakeClient(), props: Partial<Parameters<typeof App>[0]> = {}) {
  const ui = render(<App client={fake.client} size={{ columns: 100, rows: 30 }} {...props} />);
  return { ...ui, fake, frame: (p: (f: string) => boolean, ms?: number) => waitFor(ui.lastFrame, p, ms) };
}

/** The names of the resource rows on screen, top to bottom. */
const names = (frame: string) =>
  frame
    .split("\n")
    .filter((line) => /^[> ] \S+ +Res /.test(line))
    .map((line) => /Res \d+/.exec(line)?.[0]);

describe("sorting", () => {
  test("s sorts by the next column (shown in the header and title), S reverses, past the last: server order", async () => {
    const fake = fakeClient();
    fake.state.resources = [
      { ...resource("r-b", "Bravo", 3), memberCount: 5 },
      { ...resource("r-c", "Charlie", 2), memberCount: 1 },
      { ...resource("r-a", "Alpha", 1), memberCount: 12 },
    ];
    const { stdin, frame } = mount(fake);
    await press(stdin, "4");
    const order = (f: string) => ["Alpha", "Bravo", "Charlie"].sort((x, y) => f.indexOf(x) - f.indexOf(y));
    let f = await frame((f) => f.includes("Resources 3"));
    expect(order(f)).toEqual(["Bravo", "Charlie", "Alpha"]); // the server's order
    await press(stdin, "s");
    f = await frame((f) => f.includes("· by ID ↑"));
    expect(f).toMatch(/ ID↑ /);
    expect(order(f)).toEqual(["Alpha", "Bravo", "Charlie"]);
    await press(stdin, "s");
    f = await frame((f) => f.includes("· by NAME ↑"));
    expect(order(f)).toEqual(["Alpha", "Bravo", "Charlie"]);
    await press(stdin, "S");
    f = await frame((f) => f.includes("· by NAME ↓") && f.includes("NAME↓"));
    expect(order(f)).toEqual(["Charlie", "Bravo", "Alpha"]);
    for (const _ of [1, 2, 3]) await press(stdin, "s"); // TYPE, VISIBILITY, MEMBERS
    f = await frame((f) => f.includes("· by MEMBERS ↑"));
    expect(order(f)).toEqual(["Charlie", "Bravo", "Alpha"]); // 1, 5, 12: numbers, not text
    await press(stdin, "s"); // APP
    await press(stdin, "s"); // CREATED: the youngest first
    f = await frame((f) => f.includes("· by CREATED ↑"));
    expect(order(f)).toEqual(["Bravo", "Charlie", "Alpha"]);
    await press(stdin, "s");
    f = await frame((f) => !f.includes("· by "));
    expect(order(f)).toEqual(["Bravo", "Charlie", "Alpha"]);
  });

  test("the selection stays on its row when the order changes", async () => {
    const { stdin, frame } = mount();
    await press(stdin, "2");
    await press(stdin, "j");
    await frame((f) => f.includes("> s2"));
    await press(stdin, "s"); // by SESSION
    await press(stdin, "S"); // descending: s3, s2, s1
    const f = await frame((f) => f.includes("SESSION↓"));
    expect(f).toContain("> s2");
    expect(f.indexOf("s3")).toBeLessThan(f.indexOf("> s2"));
  });
});

describe("paging and searching the server", () => {
  const many = () => {
    const fake = fakeClient();
    fake.state.resources = Array.from({ length: 250 }, (_, i) =>
      resource(`r${1000 - i}`, `Res ${250 - i}`, 250 - i),
    );
    return fake;
  };

  test("the next page loads through the cursor as the selection nears the end, until all 250 are there", async () => {
    const fake = many();
    const { stdin, frame } = mount(fake);
    await press(stdin, "4");
    let f = await frame((f) => f.includes("Resources 100 loaded, more on the server"));
    expect(names(f)[0]).toBe("Res 250");
    expect(fake.calls.filter((c) => c.startsWith("resources"))).toEqual(["resources"]);
    await press(stdin, "G");
    await frame((f) => f.includes("Resources 200 loaded, more on the server"));
    expect(fake.calls).toContain("resources@100");
    await press(stdin, "G");
    await frame((f) => /Resources 250\n/.test(f));
    expect(fake.calls).toContain("resources@200");
    await press(stdin, "G");
    f = await frame((f) => /> r751 +Res 1 /.test(f));
    expect(f).not.toContain("more on the server");
    // An event re-lists as many rows as were loaded: the selection stays at the end.
    fake.emit("resource.created");
    await waitFor(
      () => String(fake.calls.filter((c) => c === "resources").length),
      (n) => n === "2",
    );
    f = await frame((f) => f.includes("Resources 250"));
    expect(f).toMatch(/> r751 +Res 1 /);
  });

  test("a kept filter asks the server (query), finding rows not loaded yet", async () => {
    const fake = many();
    const { stdin, frame } = mount(fake);
    await press(stdin, "4");
    await frame((f) => f.includes("Resources 100 loaded"));
    await press(stdin, "/");
    for (const ch of "res 7") await press(stdin, ch);
    let f = await frame((f) => f.includes("filter: /res 7_"));
    expect(names(f)).not.toContain("Res 7"); // only the loaded rows while typing
    await press(stdin, KEY.enter);
    f = await frame((f) => f.includes("filter: res 7 (esc clears)") && names(f).includes("Res 7"));
    expect(fake.calls).toContain("resources?query=res 7");
    expect(names(f)).toContain("Res 70");
    expect(names(f)).not.toContain("Res 8");
    await press(stdin, KEY.esc);
    f = await frame((f) => /Resources \d+ loaded, more on the server/.test(f));
    expect(f).not.toContain("filter:");
  });
});

describe("columns", () => {
  test("a short column keeps its width while a long one gives way; ids keep their end; schema words", async () => {
    const fake = fakeClient();
    fake.state.sessions = [
      session(`${"x".repeat(30)}TAIL`, "a-rather-long-user-id-for-this-table"),
      { ...session("s2", "bob"), clientId: "test-web" },
    ];
    fake.state.resources = [
      resource("0190d7a0-0000-7000-8000-00000000aaaa", "Same name"),
      resource("0190d7a0-0000-7000-8000-00000000bbbb", "Same name"),
      { ...resource("r3", "Open room"), visibility: "public", discoverable: false },
    ];
    const { stdin, frame } = mount(fake, { size: { columns: 60, rows: 20 } });
    await press(stdin, "2");
    let f = await frame((f) => f.includes("bob"));
    expect(f).toMatch(/ test-web /); // CLIENT is never cut
    expect(f).not.toContain("TAIL"); // the session id gave way
    for (const line of f.split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    await press(stdin, "4");
    f = await frame((f) => f.includes("Open room"));
    expect(f).toMatch(/…0+aaaa +Same name/);
    expect(f).toMatch(/…0+bbbb +Same name/);
    expect(f).toMatch(/Same name +team +members /);
    expect(f).toMatch(/Open room +team +unlisted /);
  });

  test("at 100 columns full ids show; the roster title counts active and pending apart", async () => {
    const { stdin, frame } = mount();
    await press(stdin, "4");
    let f = await frame((f) => f.includes("Beta Club"));
    expect(f).toMatch(/r2 +Beta Club +club +discoverable +1 /);
    await press(stdin, KEY.enter);
    f = await frame((f) => f.includes("Resources › Team Alpha › members 2 active · 1 pending"));
    expect(f).toMatch(/dave +writer +invited/);
  });
});

describe("copy, read-only, refusal, reconnect", () => {
  test("c copies the selected row's id and says so", async () => {
    const copied: string[] = [];
    const { stdin, frame } = mount(fakeClient(), { copy: (text) => copied.push(text) });
    await press(stdin, "2");
    await press(stdin, "j");
    await press(stdin, "c");
    await frame((f) => f.includes("Copied s2 to the clipboard (OSC 52)."));
    await press(stdin, "4");
    await press(stdin, "c");
    await frame((f) => f.includes("Copied r1 to the clipboard"));
    expect(copied).toEqual(["s2", "r1"]);
  });

  test("--readonly: x, d, X and e do nothing but say so; no action is offered", async () => {
    const { stdin, frame, fake } = mount(fakeClient(), { readonly: true });
    let f = await frame((f) => f.includes("read-only"));
    await press(stdin, "2");
    f = await frame((f) => f.includes("> s1"));
    expect(f).toContain("READ-ONLY");
    expect(f).not.toContain("x revoke");
    for (const key of ["x", "d"]) {
      await press(stdin, key);
      f = await frame((f) => f.includes(`Read-only (--readonly): "${key}" changes nothing here.`));
      expect(f).not.toContain("Revoke session");
    }
    await press(stdin, KEY.enter); // alice
    await frame((f) => f.includes("User alice"));
    await press(stdin, "X");
    await frame((f) => f.includes('"X" changes nothing'));
    await press(stdin, ":");
    for (const ch of "resource r1") await press(stdin, ch);
    await press(stdin, KEY.enter);
    await press(stdin, "j");
    await press(stdin, "e");
    f = await frame((f) => f.includes('"e" changes nothing'));
    expect(f).not.toContain("New role");
    expect(fake.calls.filter((c) => /^(revoke|cancel|remove|setRole)/.test(c))).toEqual([]);
  });

  test("a refused token is final: onFatal once, no retry", async () => {
    const fake = fakeClient();
    fake.state.refused = true;
    const fatal: string[] = [];
    const { frames } = mount(fake, { onFatal: (code) => fatal.push(code) });
    await waitFor(
      () => fatal.join(),
      (f) => f === "unauthenticated",
    );
    expect(frames.some((f) => f.includes("refused this token (unauthenticated). Exiting."))).toBe(true);
    expect(fake.calls).toEqual(["overview"]);
  });

  test("a stream refused is final too", async () => {
    const fatal: string[] = [];
    const { frame, fake, frames } = mount(fakeClient(), { onFatal: (code) => fatal.push(code) });
    await frame((f) => f.includes("CONNECTED"));
    fake.status({ state: "refused", error: "admin_disabled" });
    await waitFor(
      () => fatal.join(),
      (f) => f === "admin_disabled",
    );
    expect(frames.some((f) => f.includes("refused this token (admin_disabled)"))).toBe(true);
  });

  test("r while disconnected reconnects the stream at once and re-lists", async () => {
    const { stdin, frame, fake } = mount();
    await frame((f) => f.includes("CONNECTED"));
    fake.status({ state: "retrying", retryAt: Date.now() + 60_000, attempt: 5, error: "unreachable" });
    await frame((f) => /DISCONNECTED · retry in (59|60)s/.test(f));
    const before = fake.calls.length;
    await press(stdin, "r");
    await waitFor(
      () => String(fake.reconnects),
      (n) => n === "1",
    );
    await waitFor(
      () => String(fake.calls.length),
      (n) => Number(n) > before,
    );
    fake.status({ state: "open" });
    await frame((f) => f.includes("CONNECTED") && !f.includes("DISCONNECTED"));
  });
});

describe("the frame", () => {
  test("ages tick with the clock, with no refresh", async () => {
    const fake = fakeClient();
    fake.state.sessions = [{ ...session("s1", "alice"), createdAt: new Date().toISOString() }];
    const { stdin, frame } = mount(fake, { resyncMs: 3_600_000 });
    await press(stdin, "2");
    await frame((f) => /s1 +alice +web +0s ago/.test(f));
    const calls = fake.calls.length;
    await frame((f) => /s1 +alice +web +[12]s ago/.test(f), 3000);
    expect(fake.calls.length).toBe(calls);
  });

  test("a flash clears when the screen changes", async () => {
    const { stdin, frame } = mount(fakeClient(), { flashMs: 3_600_000 });
    await press(stdin, "2");
    await press(stdin, "x");
    await press(stdin, "n");
    await frame((f) => f.includes("Cancelled: nothing changed"));
    await press(stdin, "3");
    const f = await frame((f) => f.includes("[3 Pending]"));
    expect(f).not.toContain("Cancelled");
  });

  test("Pending: the action is withdraw or decline, apart from the confirmation's cancel", async () => {
    const { stdin, frame } = mount(fakeClient(), { size: { columns: 80, rows: 24 } });
    await press(stdin, "3");
    let f = await frame((f) => f.includes("> invited"));
    expect(f).toContain("x withdraw/decline");
    await press(stdin, "x");
    f = await frame((f) => f.includes("Withdraw the invite of dave to Team Alpha?"));
    expect(f).toContain("n: cancel");
  });

  test("at 80x24 the help shows whole, its last line too; at 60x15 it scrolls", async () => {
    const { stdin, frame } = mount(fakeClient(), { size: { columns: 80, rows: 24 } });
    await press(stdin, "?");
    const f = await frame((f) => f.includes("Help"));
    const lines = f.split("\n");
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(80);
      expect(line).not.toContain("…");
    }
    expect(f).toContain("Live: gateway events refresh the screen; a full re-list every 30s.");
    expect(f).toContain("?  q        close this help · quit");
    cleanup();

    const small = mount(fakeClient(), { size: { columns: 60, rows: 15 } });
    await press(small.stdin, "?");
    let g = await small.frame((f) => f.includes("Help · j/k scroll"));
    expect(g).toContain("↓ more (j)");
    expect(g).not.toContain("close this help");
    for (const _ of Array.from({ length: 12 })) await press(small.stdin, "j");
    g = await small.frame((f) => f.includes("close this help"));
    expect(g.split("\n").length).toBeLessThanOrEqual(14);
  });

  test("every screen's footer fits 80 columns whole", async () => {
    const { stdin, frame } = mount(fakeClient(), { size: { columns: 80, rows: 24 } });
    for (const [key, expected] of [
      ["1", "Sessions active"],
      ["2", "> s1"],
      ["3", "> invited"],
      ["4", "Beta Club"],
      ["5", "Events · live"],
      [KEY.enter, "Team Alpha › members"],
    ] as const) {
      await press(stdin, key);
      const f = await frame((f) => f.includes(expected));
      expect(f.split("\n").at(-1)).toMatch(/q quit +updated \d+s ago$/);
    }
    await press(stdin, "j");
    await press(stdin, KEY.enter);
    const f = await frame((f) => f.includes("User bob"));
    expect(f.split("\n").at(-1)).toMatch(/q quit +updated \d+s ago$/);
  });
});
