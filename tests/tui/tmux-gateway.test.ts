/**
 * End to end against a real gateway and the development provider: the TUI in tmux shows a user's
 * session appear without a key press, revokes it (the cookie is signed out on the next request), says
 * DISCONNECTED while the gateway is down, recovers when it comes back on the same ports, and `q` exits 0
 * leaving the terminal as it was (alternate screen off).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "../../src/server/serve.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

const hasTmux = Bun.which("tmux") !== null;
const root = join(import.meta.dir, "../..");
const socket = join(mkdtempSync(join(tmpdir(), "tui-gw-")), "tmux.sock");
const target = "gw";
const tmux = (...args: string[]) =>
  Bun.spawnSync(["tmux", "-S", socket, ...args], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
const screen = () => tmux("capture-pane", "-p", "-t", target);
const key = (k: string) => tmux("send-keys", "-t", target, k);

async function waitForScreen(pattern: RegExp, timeoutMs = 8000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
    await Bun.sleep(80);
  }
}

let stack: Stack | undefined;
let restarted: Awaited<ReturnType<typeof startGateway>> | undefined;
afterAll(async () => {
  if (hasTmux) tmux("kill-server");
  await restarted?.stop();
  await stack?.stop().catch(() => {});
}, 30_000);

describe.skipIf(!hasTmux)("the TUI in tmux against a real gateway", () => {
  test("a sign-in appears live, revoke signs the cookie out, disconnect and recovery, q exits 0", async () => {
    stack = await startStack();
    const command = `cd ${root} && env -u CI -u NO_COLOR TERM=xterm-256color bun src/tui/cli.ts --url ${stack.adminUrl} --token test-admin-token; echo EXITED:$?; sleep 5`;
    tmux("new-session", "-d", "-s", target, "-x", "100", "-y", "30", command);
    await waitForScreen(/ CONNECTED/);
    key("2");
    await waitForScreen(/Sessions/);

    const { browser } = await signIn(stack, "tmux-user");
    const cookie = browser.cookieHeader(stack.url);
    await waitForScreen(/^> .*tmux-user/m); // no key pressed: the event stream brought it

    key("x");
    await waitForScreen(/Revoke session .*tmux-user/);
    key("y");
    await waitForScreen(/Revoked session/);
    const report = await fetch(`${stack.url}/auth/session`, { headers: { cookie } });
    expect(await report.json()).toEqual({ authenticated: false, reason: "revoked" });
    expect(stack.idp.calls.revoke).toBeGreaterThanOrEqual(1);

    // Stop the gateway: the TUI keeps its rows and says so. Start it again on the same ports.
    const { config } = stack.running.gateway;
    const apps = { apps: stack.running.gateway.apps.all };
    const adminPort = Number(new URL(stack.adminUrl).port);
    await stack.running.stop();
    await waitForScreen(/DISCONNECTED · retry in \d+s/);
    restarted = await startGateway({ config: { ...config, adminPort }, apps, log: () => {} });
    await signIn({ ...stack, running: restarted, url: restarted.publicUrl } as Stack, "after-restart");
    await waitForScreen(/after-restart/, 20_000);
    await waitForScreen(/ CONNECTED/, 20_000); // the stream reconnects on its own backoff

    key("q");
    await waitForScreen(/EXITED:0/);
    expect(tmux("display", "-p", "-t", target, "#{alternate_on}").trim()).toBe("0");
  }, 60_000);
});
