/**
 * Writes a text capture of each TUI screen (tmux capture-pane, 80x24) under docs/tui/, against the fake
 * admin API. Run by hand: `bun tests/tui/capture-screens.ts`. Not a test (no .test suffix).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAdmin } from "./fake-admin-server.ts";

const root = join(import.meta.dir, "../..");
const out = join(root, "docs/tui");
const socket = join(mkdtempSync(join(tmpdir(), "tui-docs-")), "tmux.sock");
const tmux = (...args: string[]) =>
  Bun.spawnSync(["tmux", "-S", socket, ...args], { stdout: "pipe" }).stdout.toString();
const screen = () => tmux("capture-pane", "-p", "-t", "docs");

async function until(text: string) {
  const end = Date.now() + 6000;
  while (!screen().includes(text)) {
    if (Date.now() > end) throw new Error(`no "${text}" on screen:\n${screen()}`);
    await Bun.sleep(80);
  }
  await Bun.sleep(150);
}

const fake = startFakeAdmin({ token: "docs" });
mkdirSync(out, { recursive: true });
const cmd = `cd ${root} && env -u CI TERM=xterm-256color bun src/tui/cli.ts --url ${fake.url} --token docs; sleep 2`;
tmux("new-session", "-d", "-s", "docs", "-x", "80", "-y", "24", cmd);
const shots: [string, string[], string][] = [
  ["overview", [], "Sessions active"],
  ["sessions", ["2"], "> s1"],
  ["confirm", ["j", "x"], "Revoke session s2"],
  ["pending", ["n", "3"], "> invited"],
  ["resources", ["4"], "> Team Alpha"],
  ["roster", ["Enter"], "members"],
  ["help", ["?"], "Help"],
];
for (const [name, keys, expected] of shots) {
  for (const k of keys) {
    tmux("send-keys", "-t", "docs", k);
    await Bun.sleep(120);
  }
  await until(expected);
  writeFileSync(join(out, `${name}.txt`), screen());
}
tmux("send-keys", "-t", "docs", "Escape");
fake.stop();
await until("DISCONNECTED");
writeFileSync(join(out, "disconnected.txt"), screen());
tmux("kill-server");
console.log(`wrote ${shots.length + 1} captures to ${out}`);
