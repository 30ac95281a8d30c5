/**
 * End to end against a real gateway and the development provider: the TUI in tmux shows a user's
 * session appear without a key press, revokes it (the cookie is signed out on the next request), says
 * DISCONNECTED while the gateway is down, recovers when it comes back on the same ports, and `q` exits 0
 * leaving the terminal as it was (alternate screen off).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startGateway } from "../../src/server/serve.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";
import { hasTmux, Tmux } from "./tmux-kit.ts";

const target = "gw";
const tmux = new Tmux();
const key = (k: string) => tmux.key(target, k);
const waitForScreen = (pattern: RegExp, timeoutMs?: number) => tmux.waitFor(target, pattern, timeoutMs);

let stack: Stack | undefined;
let restarted: Awaited<ReturnType<typeof startGateway>> | undefined;
afterAll(async () => {
  if (hasTmux) await tmux.kill();
  await restarted?.stop();
  await stack?.stop().catch(() => {});
}, 30_000);

describe.skipIf(!hasTmux)("the TUI in tmux against a real gateway", () => {
  test("a sign-in appears live, revoke signs the cookie out, disconnect and recovery, q exits 0", async () => {
    stack = await startStack();
    await tmux.start(target, `--url ${stack.adminUrl} --token test-admin-token`);
    await waitForScreen(/ CONNECTED/);
    await key("2");
    await waitForScreen(/Sessions/);

    const { browser } = await signIn(stack, "tmux-user");
    const cookie = browser.cookieHeader(stack.url);
    await waitForScreen(/^> .*tmux-user/m); // no key pressed: the event stream brought it

    await key("x");
    await waitForScreen(/Revoke session .*tmux-user/);
    await key("y");
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

    await key("q");
    await waitForScreen(/EXITED:0/);
    expect((await tmux.run("display", "-p", "-t", target, "#{alternate_on}")).trim()).toBe("0");
  }, 60_000);
});
