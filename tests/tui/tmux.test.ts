/**
 * End to end: the real `bun src/tui/cli.ts` in a real tmux, against a fake admin API served from this test
 * (the admin API's shapes, an SSE stream we push events into). Keys are sent one per call: keys sent
 * together coalesce into one input chunk. CI is unset for the pane, or Ink draws nothing until exit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAdmin } from "./fake-admin-server.ts";
import { session } from "./fake-client.ts";

const hasTmux = Bun.which("tmux") !== null;
if (!hasTmux)
  console.warn("tests/tui/tmux.test.ts: skipped, tmux is not installed (apt-get install -y tmux)");

const root = join(import.meta.dir, "../..");
const socket = join(mkdtempSync(join(tmpdir(), "tui-e2e-")), "tmux.sock");
const target = "tui";

function tmux(...args: string[]): string {
  const run = Bun.spawnSync(["tmux", "-S", socket, ...args], { stdout: "pipe", stderr: "pipe" });
  return run.stdout.toString();
}
const screen = () => tmux("capture-pane", "-p", "-t", target);
const key = (k: string) => tmux("send-keys", "-t", target, k);

async function waitForScreen(pattern: RegExp, timeoutMs = 6000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
    await Bun.sleep(80);
  }
}

afterAll(() => {
  if (hasTmux) tmux("kill-server");
});

describe.skipIf(!hasTmux)("the TUI in tmux against a fake admin API", () => {
  test("live list, revoke, disconnect and recovery, quit", async () => {
    const token = "e2e-token";
    const fake = startFakeAdmin({ token });
    try {
      const command = `cd ${root} && env -u CI -u NO_COLOR TERM=xterm-256color bun src/tui/cli.ts --url ${fake.url} --token ${token}; echo EXITED:$?; sleep 5`;
      tmux("new-session", "-d", "-s", target, "-x", "100", "-y", "30", command);

      await waitForScreen(/Sessions active\s+3/);
      expect(tmux("display", "-p", "-t", target, "#{alternate_on}").trim()).toBe("1");
      key("2");
      await waitForScreen(/^> s1 .*alice/m);

      // An event on the stream brings the new session without a key press.
      fake.addSession(session("s0", "newcomer"));
      await waitForScreen(/newcomer/);
      expect(screen()).toMatch(/^> s1 /m); // the selection stayed on its row

      // Revoke: x asks with Cancel as the default, y confirms, the DELETE goes out, the list follows.
      key("j");
      await waitForScreen(/^> s2 /m);
      key("x");
      await waitForScreen(/Revoke session s2 \(user bob, client web\)\?/);
      key("y");
      await waitForScreen(/Revoked session s2\./);
      expect(fake.requests).toContain("DELETE /admin/v1/sessions/s2");
      await waitForScreen(/^> s3 /m);

      // The gateway goes away: the last rows stay, the header says so; it comes back on the same port.
      fake.stop();
      const down = await waitForScreen(/DISCONNECTED · retry in \d+s/);
      expect(down).toContain("carol");
      fake.restart();
      await waitForScreen(/ CONNECTED/, 8000);

      key("q");
      await waitForScreen(/EXITED:0/);
      expect(tmux("display", "-p", "-t", target, "#{alternate_on}").trim()).toBe("0");
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
      tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command);
      const capture = (...flags: string[]) => tmux("capture-pane", "-p", ...flags, "-t", name);
      const end = Date.now() + 6000;
      while (!capture().includes("CONNECTED") && Date.now() < end) await Bun.sleep(80);
      tmux("send-keys", "-t", name, "2");
      while (!/^> s1/m.test(capture()) && Date.now() < end) await Bun.sleep(80);
      const styled = capture("-e");
      expect(styled).toContain("> s1");
      // No SGR escape at all: no colour, no inverse, no bold; the words and ">" carry the meaning.
      expect(styled.includes(`${String.fromCharCode(27)}[`)).toBe(false); // capture -e writes only SGR
      tmux("resize-window", "-t", name, "-x", "58", "-y", "14");
      while (!capture().includes("terminal too small") && Date.now() < end + 3000) await Bun.sleep(80);
      expect(capture()).toContain("terminal too small: need 60x15, have 58x14");
      tmux("send-keys", "-t", name, "q");
      while (!capture().includes("EXITED:0") && Date.now() < end + 5000) await Bun.sleep(80);
      expect(capture()).toContain("EXITED:0");
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
