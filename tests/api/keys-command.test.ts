/**
 * `gateway keys` against what the gateway really uses: status tells what each running process seals
 * with (a rotation reaches a process only when it restarts), prune refuses a key a running process or a
 * live session still needs (--force signs the sessions out and says how many), a process that stopped
 * reporting stops counting, start-up says how many live sessions sit on a key it does not have, and a
 * database that does not exist is never created (it would count no session at all). Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, renameSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { STALE_MS } from "../../src/server/auth/heartbeat.ts";
import { readKeyFile, rotateKeyFile, writeKeyFile } from "../../src/server/auth/key-file.ts";
import { deriveKey, newSecret } from "../../src/server/auth/keyring.ts";
import { loadConfig } from "../../src/server/config.ts";
import { runKeys } from "../../src/server/keys-command.ts";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import { type Stack, signIn, startStack, tempDir } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

const keyFile = () => stack.env.SESSION_KEY_FILE ?? join(stack.dataDir, "session.key");
const keyIds = () => Promise.all(readKeyFile(keyFile()).map(async (secret) => (await deriveKey(secret)).id));

async function keys(action: "status" | "rotate" | "prune", force = false) {
  const printed: string[] = [];
  const code = await runKeys(loadConfig(stack.env), { action, force }, (line) => printed.push(line));
  return { code, text: printed.join("\n"), lines: printed };
}

async function login(user: string) {
  const { browser, token } = await signIn(stack, user, new Browser());
  expect(token.status).toBe(200);
  return browser.cookieHeader(stack.url);
}

const session = async (cookie: string) =>
  (await fetch(`${stack.url}/auth/session`, { headers: { cookie } })).json();

/** Ends every live session, so each test starts from the sessions it makes. */
async function endAll() {
  for (const row of await stack.running.gateway.store.listLive({}, 1000))
    await stack.running.gateway.sessions.end(row.id, "test", null);
}

describe("gateway keys", () => {
  test("status tells what the running process seals with: after a rotation, still the old key until it restarts", async () => {
    const [old] = await keyIds();
    const rotated = await keys("rotate");
    expect(rotated.code).toBe(0);
    const [current] = await keyIds();
    expect(current).not.toBe(old);
    const before = await keys("status");
    expect(before.code).toBe(0);
    const line = (id: string, text: string) => text.split("\n").find((l) => l.trimStart().startsWith(id));
    expect(line(current!, before.text)).toMatch(
      /current .* no running process seals with it yet: they use it once restarted$/,
    );
    expect(line(old!, before.text)).toMatch(/previous .* unseals; 1 running process seals with it/);
    expect(before.text).toContain(`${hostname()} pid ${process.pid}  seals with ${old}`);
    await stack.restart();
    const after = await keys("status");
    expect(line(current!, after.text)).toMatch(/current .* 1 running process seals with it$/);
    expect(line(old!, after.text)).toMatch(/previous .* unseals only$/);
    expect(after.text).toContain(`${hostname()} pid ${process.pid}  seals with ${current}`);
  }, 60_000);

  test("prune refuses a key a running process seals with, then one a live session needs; --force says how many it signs out", async () => {
    await endAll();
    // The key the first test rotated away from goes: nothing needs it any more.
    expect(await keys("prune")).toMatchObject({ code: 0 });
    expect(await keyIds()).toHaveLength(1);
    const cookie = await login("prune-erin");
    const [sealing] = await keyIds();
    rotateKeyFile(keyFile());
    const before = readKeyFile(keyFile());
    // The running process still seals with the previous key: refused, the key file untouched.
    const busy = await keys("prune");
    expect(busy.code).toBe(1);
    expect(busy.text).toContain(
      `keys: kept ${sealing}: 1 running process still seals with it (restart it first)`,
    );
    expect(busy.text).toContain("1 live session sealed with it (--force signs it out)");
    expect(readKeyFile(keyFile())).toEqual(before);
    // Restarted, the process seals with the new key; erin's cookie still needs the previous one.
    await stack.restart();
    const needed = await keys("prune");
    expect(needed.code).toBe(1);
    expect(needed.lines.filter((l) => l.startsWith(`keys: kept ${sealing}:`))).toEqual([
      `keys: kept ${sealing}: 1 live session sealed with it (--force signs it out)`,
    ]);
    expect(readKeyFile(keyFile())).toEqual(before);
    expect(await session(cookie)).toEqual({ authenticated: true, user_id: "prune-erin" });
    // Forced: every previous key goes, and the line says how many sessions that signs out.
    const previous = (await keyIds()).slice(1);
    const forced = await keys("prune", true);
    expect(forced.code).toBe(0);
    expect(forced.text).toBe(
      `keys: removed ${previous.length} previous key${previous.length === 1 ? "" : "s"} (${previous.join(", ")}) from ${keyFile()}; 1 live session sealed with them is signed out`,
    );
    expect(readKeyFile(keyFile())).toEqual(before.slice(0, 1));
    await stack.restart();
    expect(await session(cookie)).toEqual({ authenticated: false, reason: "no_session" });
    // Nothing left to prune.
    expect(await keys("prune")).toMatchObject({ code: 0, text: "keys: no previous key to remove" });
  }, 60_000);

  test("a process elsewhere counts while it reports; one silent for 90 s no longer counts, and is deleted", async () => {
    await endAll();
    rotateKeyFile(keyFile());
    await stack.restart();
    const storage = stack.running.gateway.storage;
    const [, previous] = await keyIds();
    const now = Date.now();
    const insert = (id: string, seenAt: number) =>
      sql(storage).run(
        "INSERT INTO gateway_processes (id, host, pid, key_id, started_at, seen_at) VALUES (?, 'other-host', ?, ?, ?, ?)",
        id,
        id === "alive" ? 4242 : 4343,
        previous!,
        now - 3600_000,
        seenAt,
      );
    await insert("alive", now);
    await insert("gone", now - STALE_MS - 1000);
    const status = await keys("status");
    expect(status.text).toContain(`other-host pid 4242  seals with ${previous}`);
    expect(status.text).not.toContain("pid 4343");
    const refused = await keys("prune");
    expect(refused.code).toBe(1);
    expect(refused.text).toContain(`keys: kept ${previous}: 1 running process still seals with it`);
    // --force does not override a process still sealing with the key: it must restart first.
    expect((await keys("prune", true)).code).toBe(1);
    expect(await keyIds()).toContain(previous!);
    // The process stops reporting: after 90 s it no longer counts, and a heartbeat (here: a start) deletes it.
    await sql(storage).run("UPDATE gateway_processes SET seen_at = ? WHERE id = 'alive'", now - STALE_MS - 1);
    await stack.restart();
    expect(await sql(stack.running.gateway.storage).count("SELECT count(*) FROM gateway_processes")).toBe(1);
    expect(await keys("prune")).toMatchObject({ code: 0 });
    expect(await keyIds()).not.toContain(previous!);
  }, 60_000);

  test("start-up logs how many live sessions are sealed with a key it does not have", async () => {
    await endAll();
    await login("lost-fay");
    await login("lost-gus");
    const [lost] = await keyIds();
    // The key file replaced by one without that key (a prune elsewhere, another file copied in).
    const file = keyFile();
    const replaced = `${file}.new`;
    writeKeyFile(replaced, { secrets: [newSecret()], pseudonymKeys: [] }, true);
    renameSync(replaced, file);
    stack.logs.length = 0;
    await stack.restart();
    const warned = stack.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level === "warn");
    expect(warned).toContainEqual(
      expect.objectContaining({
        message: "live sessions are sealed with a key this gateway does not have: they are signed out",
        sessions: 2,
        keys: [lost],
      }),
    );
    const status = await keys("status");
    expect(status.text).toMatch(
      new RegExp(`${lost} +missing +2 live sessions +not in the key source: its sessions are signed out`),
    );
  }, 60_000);
});

test("keys never creates a database: one that does not exist is named, with gateway dev's hint", async () => {
  const dir = tempDir();
  const path = join(dir, "gateway.db");
  writeKeyFile(join(dir, "session.key"), { secrets: [newSecret()], pseudonymKeys: [] }, true);
  for (const action of ["status", "prune"] as const) {
    const printed: string[] = [];
    const code = await runKeys(loadConfig({ DATABASE_PATH: path }), { action }, (line) => printed.push(line));
    expect(code).toBe(1);
    expect(printed).toEqual([
      `keys: no database at ${path} (DATABASE_PATH): start the gateway first, or for gateway dev's keys run gateway keys --dev`,
    ]);
    expect(existsSync(path)).toBe(false);
  }
});
