/**
 * Writes an 80x24 text capture of each TUI screen (tmux capture-pane) under docs/tui/, against a real
 * gateway and the development provider holding a few users, resources, invites and requests made through
 * the public API. Run by hand: `bun tests/tui/capture-gateway-screens.ts`. Not a test (no .test suffix).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CSRF, signIn, startStack } from "../helpers/stack.ts";
import { ROOT, Tmux } from "./tmux-kit.ts";

const out = join(ROOT, "docs/tui");
const tmux = new Tmux();
const pane = "docs";

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
// Two resources with one name: the ID column tells them apart.
await call("carol", "POST", "/v1/resources", { type: "album", name: "Offsite photos" });
await call("alice", "POST", `/v1/resources/${team.id}/invite`, { userId: "bob", role: "writer" });
await call("bob", "POST", `/v1/resources/${team.id}/accept`);
await call("alice", "POST", `/v1/resources/${team.id}/invite`, { userId: "dave", role: "reader" });
await call("carol", "POST", `/v1/resources/${team.id}/request`, {});
await call("alice", "POST", `/v1/resources/${album.id}/join`);
await call("carol", "POST", `/v1/resources/${album.id}/join`);

mkdirSync(out, { recursive: true });
await tmux.start(pane, `--url ${stack.adminUrl} --token test-admin-token`, { columns: 80, rows: 24 });

/** Keys (tmux key names) or `:command` lines, then the screen once `expected` shows. */
type Step = string | { command: string } | { text: string } | (() => Promise<unknown>);
const shots: [string, Step[], RegExp][] = [
  ["overview", [], /Sessions active/],
  ["sessions", ["2"], /carol/],
  ["confirm", ["x"], /Revoke session/],
  ["pending", ["Escape", "3"], /Platform team/],
  ["resources", ["4"], /Offsite photos[\s\S]*Offsite photos/],
  ["resources-sorted", ["s", "s"], /by NAME ↑/],
  ["roster", [{ command: `resource ${team.id}` }], /members 2 active · 2 pending/],
  ["roster-role", ["j", "e"], /New role for bob/],
  ["user", ["Escape", "Escape", { command: "user alice" }], /Recent events/],
  ["events", ["5"], /Events · live/],
  ["events-paused", ["p", () => call("bob", "POST", `/v1/resources/${team.id}/leave`)], /PAUSED · 1 new/],
  ["command", ["p", ":", { text: "res" }, "Tab"], /resources {2}resource/],
  ["help", ["Escape", "?"], /Help/],
];
for (const [name, steps, expected] of shots) {
  for (const step of steps) {
    if (typeof step === "string") await tmux.key(pane, step);
    else if (typeof step === "function") await step();
    else if ("command" in step) await tmux.command(pane, step.command);
    else await tmux.type(pane, step.text);
    await Bun.sleep(200); // an escape followed at once by a key reads as alt+key
  }
  await tmux.waitFor(pane, expected);
  await Bun.sleep(300); // let the frame settle (ages, the flash)
  writeFileSync(join(out, `${name}.txt`), await tmux.screen(pane));
}
await tmux.key(pane, "Escape");
await Bun.sleep(200); // an escape followed at once by a key reads as alt+key
await tmux.key(pane, "2");
await Bun.sleep(5500); // let any flash expire
await stack.running.stop();
await tmux.waitFor(pane, /DISCONNECTED/);
writeFileSync(join(out, "disconnected.txt"), await tmux.screen(pane));
await tmux.kill();
await stack.idp.stop();
console.log(`wrote ${shots.length + 1} captures to ${out}`);
process.exit(0);
