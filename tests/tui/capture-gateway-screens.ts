/**
 * Writes an 80x24 text capture of each TUI screen (tmux capture-pane) under docs/tui/, against a real
 * gateway and the development provider holding a few users, resources, invites and requests.
 * Run by hand: `bun tests/tui/capture-gateway-screens.ts`. Not a test (no .test suffix).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CSRF, signIn, startStack } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
const out = join(root, "docs/tui");
const socket = join(mkdtempSync(join(tmpdir(), "tui-docs-")), "tmux.sock");
const tmux = (...args: string[]) =>
  Bun.spawnSync(["tmux", "-S", socket, ...args], { stdout: "pipe" }).stdout.toString();
const screen = () => tmux("capture-pane", "-p", "-t", "docs");
async function until(text: string) {
  const end = Date.now() + 8000;
  while (!screen().includes(text)) {
    if (Date.now() > end) throw new Error(`no "${text}" on screen:\n${screen()}`);
    await Bun.sleep(80);
  }
  await Bun.sleep(200);
}

const stack = await startStack();
const users = Object.fromEntries(
  await Promise.all(
    ["alice", "bob", "carol"].map(async (u) => [u, (await signIn(stack, u)).browser] as const),
  ),
);
const call = async (user: string, method: string, path: string, body?: unknown) =>
  (
    await users[user]!.fetch(`${stack.url}${path}`, {
      method,
      headers: CSRF,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).json() as Promise<{ id: string }>;
const team = await call("alice", "POST", "/v1/resources", { type: "team", name: "Platform team" });
const album = await call("bob", "POST", "/v1/resources", { type: "album", name: "Offsite photos" });
await call("alice", "POST", `/v1/resources/${team.id}/invite`, { userId: "bob", role: "admin" });
await call("carol", "POST", `/v1/resources/${team.id}/request`, {});
await call("alice", "POST", `/v1/resources/${album.id}/join`);
await call("carol", "POST", `/v1/resources/${album.id}/join`);

mkdirSync(out, { recursive: true });
const cmd = `cd ${root} && env -u CI TERM=xterm-256color bun src/tui/cli.ts --url ${stack.adminUrl} --token test-admin-token; sleep 2`;
tmux("new-session", "-d", "-s", "docs", "-x", "80", "-y", "24", cmd);
const shots: [string, string[], string][] = [
  ["overview", [], "Sessions active"],
  ["sessions", ["2"], "carol"],
  ["pending", ["3"], "Platform team"],
  ["resources", ["4"], "Offsite photos"],
  ["roster", ["Enter"], "owner"],
  ["help", ["?"], "Help"],
  ["confirm", ["Escape", "2", "x"], "Revoke session"],
];
for (const [name, keys, expected] of shots) {
  for (const k of keys) {
    tmux("send-keys", "-t", "docs", k);
    await Bun.sleep(150);
  }
  await until(expected);
  writeFileSync(join(out, `${name}.txt`), screen());
}
tmux("send-keys", "-t", "docs", "Escape");
await Bun.sleep(5500); // let the "Cancelled" flash expire
await stack.running.stop();
await until("DISCONNECTED");
writeFileSync(join(out, "disconnected.txt"), screen());
tmux("kill-server");
await stack.idp.stop();
console.log(`wrote ${shots.length + 1} captures to ${out}`);
process.exit(0);
