/**
 * No escape sequence or invisible character from data reaches the terminal: ids, names, types, event
 * types and data, error messages, confirmation prompts and the role picker all carry an OSC title, a
 * BEL, a clear-screen, a one-byte C1 CSI and a bidi override, and every frame drawn while visiting
 * each screen holds none of them (each is drawn as a visible "?"). Regression: a subject with escape
 * sequences printed raw colour codes in the operator's terminal. The same through a real terminal:
 * tests/tui/tmux-hostile.test.ts. And a guard: no screen draws with Ink's own Text.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, render } from "ink-testing-library";
import { App } from "../../src/tui/app.tsx";
import { printable, printableLines } from "../../src/tui/printable.ts";
import { event, fakeClient, fakeState, KEY, press, session, waitFor } from "./fake-client.ts";

afterEach(() => cleanup());

/** What a hostile subject or name carries; none of these pieces may appear in a frame. */
export const EVIL = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202emallory";
const FORBIDDEN = ["\u0007", "\u009b", "\u202e", "\u001b]", "\u001b[2J"];
const SHOWN = "?]0;pwned??[2J?31m?mallory";

function hostileState() {
  const state = fakeState();
  state.sessions = [session("s1", EVIL), session(`s2${EVIL}`, "bob")];
  state.sessions[0]!.clientId = `web${EVIL}`;
  state.pending = [
    {
      resourceId: "r1",
      resourceName: `Team ${EVIL}`,
      userId: EVIL,
      role: "writer",
      state: "invited",
      invitedBy: EVIL,
      createdAt: "2026-01-01T00:05:00.000Z",
    },
  ];
  state.resources[0]!.name = `Team ${EVIL}`;
  state.resources[0]!.type = `team${EVIL}`;
  state.members.r1 = [
    { userId: EVIL, role: "owner", state: "active", since: "2026-01-01T00:00:00.000Z" },
    { userId: "bob", role: "writer", state: "active", since: "2026-01-01T00:02:00.000Z" },
  ];
  state.events = [
    event(2, `member.${EVIL}`, { actor: EVIL, userId: EVIL, resourceId: "r1", data: { role: EVIL } }),
    event(1, "session.created", { actor: EVIL, userId: EVIL, data: { sessionId: `s1${EVIL}` } }),
  ];
  return state;
}

function mount() {
  const fake = fakeClient(hostileState());
  const ui = render(<App client={fake.client} size={{ columns: 160, rows: 30 }} />);
  const frame = (p: (f: string) => boolean) => waitFor(ui.lastFrame, p);
  return { ...ui, fake, frame };
}

function expectClean(frames: readonly string[]) {
  for (const f of frames) for (const piece of FORBIDDEN) expect(f).not.toContain(piece);
}

describe("hostile data on every screen", () => {
  test("sessions, a user, a revoke prompt, pending, resources, a roster, the role picker, events", async () => {
    const { stdin, frame, frames } = mount();
    await press(stdin, "2");
    await frame((f) => f.includes("Sessions") && f.includes("?]0;pwned"));
    await press(stdin, "x");
    await frame((f) => f.includes(`Revoke session s1 (user ${SHOWN}, client web${SHOWN})?`));
    await press(stdin, KEY.esc);
    await press(stdin, KEY.enter);
    await frame((f) => f.includes(`User ${SHOWN}`));
    await press(stdin, "D");
    await frame((f) => f.includes(`Delete user ${SHOWN}?`));
    await press(stdin, KEY.esc);
    await press(stdin, "3");
    await frame((f) => f.includes("Pending") && f.includes("Team ?]0;pwned"));
    await press(stdin, "4");
    await frame((f) => f.includes("Resources") && f.includes("Team ?]0;pwned"));
    await press(stdin, KEY.enter);
    await frame((f) => f.includes(`Resources › Team ${SHOWN} › members`));
    await press(stdin, "j");
    await press(stdin, "e");
    await frame((f) => f.includes(`New role for bob in Team ${SHOWN}`));
    await press(stdin, KEY.esc);
    await press(stdin, "5");
    await frame((f) => f.includes("Events") && f.includes("role=?]0;pwned"));
    expectClean(frames);
    expect(frames.some((f) => f.includes("?]0;pwned"))).toBe(true);
  });

  test("an error message from the admin API is drawn printable", async () => {
    const fake = fakeClient(hostileState());
    fake.client.revokeSession = async () => {
      throw new Error(`refused ${EVIL}`);
    };
    const ui = render(<App client={fake.client} size={{ columns: 160, rows: 30 }} />);
    await press(ui.stdin, "2");
    await waitFor(ui.lastFrame, (f) => f.includes("Sessions") && f.includes("?]0;pwned"));
    await press(ui.stdin, "x");
    await press(ui.stdin, "y");
    await waitFor(ui.lastFrame, (f) => f.includes(`Failed: refused ${SHOWN}`));
    expectClean(ui.frames);
  });
});

describe("printable", () => {
  test.each([
    ["plain text", "Team Alpha", "Team Alpha"],
    ["an escape sequence", "\u001b[31mred\u001b[0m", "?[31mred?[0m"],
    ["a C1 CSI", "a\u009b2J", "a?2J"],
    ["a bidi override", "a\u202eb", "a?b"],
    ["a zero-width space", "a\u200bb", "a?b"],
    ["a joiner inside an emoji sequence", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"],
    ["a joiner at the start", "\u200dx", "?x"],
    ["a lone surrogate", "a\ud800b", "a?b"],
    ["a line separator", "x\u2028y", "x?y"],
    ["a tab and a newline", "a\tb\nc", "a?b?c"],
  ])("%s", (_, text, shown) => {
    expect(printable(text)).toBe(shown);
    expect([...printable(text)].length).toBe([...text].length);
  });

  test("printableLines keeps the line breaks", () => {
    expect(printableLines("one \u001b[2J\ntwo\n")).toBe("one ?[2J\ntwo\n");
  });
});

test("no file of the TUI draws with Ink's own Text (only text.tsx wraps it)", () => {
  const dir = join(import.meta.dir, "../../src/tui");
  const offenders = readdirSync(dir)
    .filter((name) => name !== "text.tsx" && /\.tsx?$/.test(name))
    .filter((name) =>
      /import\s*\{[^}]*\bText\b[^}]*\}\s*from\s*"ink"/.test(readFileSync(join(dir, name), "utf8")),
    );
  expect(offenders).toEqual([]);
});
