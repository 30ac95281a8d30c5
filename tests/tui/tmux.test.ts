/**
 * End to end: the real `bun src/tui/cli.ts` in a real tmux, against a fake admin API served from this test
 * (the admin API's shapes, an SSE stream we push events into). Keys are sent one per call: keys sent
 * together coalesce into one input chunk. CI is unset for the pane, or Ink draws nothing until exit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startFakeAdmin } from "./fake-admin-server.ts";
import { session } from "./fake-client.ts";
import { hasTmux, ROOT as root, Tmux } from "./tmux-kit.ts";

if (!hasTmux)
  console.warn("tests/tui/tmux.test.ts: skipped, tmux is not installed (apt-get install -y tmux)");

const target = "tui";
const kit = new Tmux();
const tmux = (...args: string[]) => kit.run(...args);
const screen = () => kit.screen(target);
const key = (k: string) => kit.key(target, k);
const waitForScreen = (pattern: RegExp, timeoutMs?: number) => kit.waitFor(target, pattern, timeoutMs);

afterAll(async () => {
  if (hasTmux) await kit.kill();
});

describe.skipIf(!hasTmux)("the TUI in tmux against a fake admin API", () => {
  test("live list, revoke, disconnect and recovery, quit", async () => {
    const token = "e2e-token";
    const fake = startFakeAdmin({ token });
    try {
      const command = `cd ${root} && env -u CI -u NO_COLOR TERM=xterm-256color bun src/tui/cli.ts --url ${fake.url} --token ${token}; echo EXITED:$?; sleep 5`;
      await tmux("new-session", "-d", "-s", target, "-x", "100", "-y", "30", command);

      await waitForScreen(/Sessions active\s+3/);
      expect((await tmux("display", "-p", "-t", target, "#{alternate_on}")).trim()).toBe("1");
      await key("2");
      await waitForScreen(/^> s1 .*alice/m);

      // An event on the stream brings the new session without a key press.
      fake.addSession(session("s0", "newcomer"));
      await waitForScreen(/newcomer/);
      expect(await screen()).toMatch(/^> s1 /m); // the selection stayed on its row

      // Revoke: x asks with Cancel as the default, y confirms, the DELETE goes out, the list follows.
      await key("j");
      await waitForScreen(/^> s2 /m);
      await key("x");
      await waitForScreen(/Revoke session s2 \(user bob, client web\)\?/);
      await key("y");
      await waitForScreen(/Revoked session s2\./);
      expect(fake.requests).toContain("DELETE /admin/v1/sessions/s2");
      await waitForScreen(/^> s3 /m);

      // The gateway goes away: the last rows stay, the header says so; it comes back on the same port.
      fake.stop();
      const down = await waitForScreen(/DISCONNECTED · retry in \d+s/);
      expect(down).toContain("carol");
      fake.restart();
      await waitForScreen(/ CONNECTED/, 8000);

      await key("q");
      await waitForScreen(/EXITED:0/);
      expect((await tmux("display", "-p", "-t", target, "#{alternate_on}")).trim()).toBe("0");
    } finally {
      fake.stop();
    }
  }, 25_000);

  test("NO_COLOR draws without colour; a small terminal gets the size message", async () => {
    const token = "e2e-token";
    const fake = startFakeAdmin({ token });
    const name = "mono";
    try {
      const command = `cd ${root} && env -u CI NO_COLOR=1 TERM=xterm-256color bun src/tui/cli.ts --url ${fake.url} --token ${token}; echo EXITED:$?; sleep 5`;
      await tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command);
      const capture = (...flags: string[]) => tmux("capture-pane", "-p", ...flags, "-t", name);
      await kit.waitFor(name, /CONNECTED/);
      await tmux("send-keys", "-t", name, "2");
      await kit.waitFor(name, /^> s1/m);
      const styled = await capture("-e");
      expect(styled).toContain("> s1");
      // No SGR escape at all: no colour, no inverse, no bold; the words and ">" carry the meaning.
      expect(styled.includes(`${String.fromCharCode(27)}[`)).toBe(false); // capture -e writes only SGR
      await tmux("resize-window", "-t", name, "-x", "58", "-y", "14");
      await kit.waitFor(name, /terminal too small: need 60x15, have 58x14/);
      await tmux("send-keys", "-t", name, "q");
      await kit.waitFor(name, /EXITED:0/);
    } finally {
      fake.stop();
    }
  }, 20_000);
});

test("with stdout not a terminal, cli.ts prints the overview (--json) and exits 0", async () => {
  const fake = startFakeAdmin({ token: "t" });
  try {
    const run = Bun.spawn(["bun", "src/tui/cli.ts", "--json", "--url", fake.url], {
      cwd: root,
      env: { ...process.env, ADMIN_TOKEN: "t" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(run.stdout).text(), run.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ sessions: { active: 3 }, users: 7 });
  } finally {
    fake.stop();
  }
});
