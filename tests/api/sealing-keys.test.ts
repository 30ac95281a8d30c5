/**
 * Secrets off the database file: the sealing keys live in SESSION_SECRET or a 0600 key file, never in
 * the database; the data folder is 0700 and the database files 0600; a rotation keeps every session
 * working (cookies and refresh tokens sealed with the previous key still open and are re-sealed with
 * the new one), and an operator's revoke still reaches the provider afterwards.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readKeyFile, rotateKeyFile } from "../../src/server/auth/key-file.ts";
import { deriveKey, keyringFrom } from "../../src/server/auth/keyring.ts";
import { CookieSealer, keyIdOf } from "../../src/server/auth/seal.ts";
import { ConfigError, loadConfig } from "../../src/server/config.ts";
import { openStorage } from "../../src/server/db/open.ts";
import { runKeys } from "../../src/server/keys-command.ts";
import { Browser } from "../helpers/browser.ts";
import { sql, sqliteOf } from "../helpers/db.ts";
import { testEngine } from "../helpers/postgres.ts";
import {
  CLIENT_SECRET,
  CSRF,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
  tempDir,
} from "../helpers/stack.ts";

const EXTRA_SECRET = "extra-server-secret-abcdefghijklmnop";

const mode = (path: string) => statSync(path).mode & 0o777;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

async function login(user: string) {
  const { browser, token } = await signIn(stack, user, new Browser());
  expect(token.status).toBe(200);
  const header = browser.cookieHeader(stack.url);
  const resolved = await stack.running.gateway.sessions.resolve(header);
  if (!resolved) throw new Error("no session");
  return {
    browser,
    header,
    sealed: header.slice(header.indexOf("=") + 1),
    row: resolved.row,
    tokens: resolved.cookie,
  };
}

/** Every string a thief could try as a secret: each text value in every table, and each run of printable bytes. */
function candidateSecrets(dbPath: string): string[] {
  const found = new Set<string>();
  for (const file of [dbPath, `${dbPath}-wal`]) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file).toString("latin1");
    for (const match of text.matchAll(/[\x21-\x7e]{16,}/g)) found.add(match[0]);
  }
  const db = new Database(dbPath, { readonly: true });
  for (const { name } of db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
    name: string;
  }>) {
    for (const row of db.query(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>)
      for (const value of Object.values(row))
        if (typeof value === "string" && value.length >= 16) found.add(value);
  }
  db.close();
  return [...found];
}

/** What the SQLite file itself holds (its bytes, its modes): SQLite only. */
const onSqlite = test.if(testEngine === "sqlite");

describe("secrets off the database file", () => {
  onSqlite(
    "the database file alone unseals no cookie and no refresh token",
    async () => {
      const alice = await login("keys-alice");
      expect(alice.row.refreshSealed).toBeString();
      const dbPath = join(stack.dataDir, "gateway.db");
      sqliteOf(stack.running.gateway.storage).exec("PRAGMA wal_checkpoint(PASSIVE)");
      const settings = await sql(stack.running.gateway.storage).all("SELECT key FROM settings");
      expect(settings).toEqual([]);
      const candidates = candidateSecrets(dbPath);
      expect(candidates.length).toBeGreaterThan(50);
      // The thief's attempt: each candidate as the secret (and as the raw key material) against both values.
      let opened = 0;
      for (const candidate of candidates) {
        const sealer = new CookieSealer(await keyringFrom([candidate], "thief"));
        if ((await sealer.unseal(alice.sealed)) !== null) opened++;
        if ((await sealer.unsealText(alice.row.refreshSealed!)) !== null) opened++;
      }
      expect(opened).toBe(0);
      // The key that does open them is in the key file, beside the database, readable by its owner only.
      const keyFile = join(stack.dataDir, "session.key");
      const owner = new CookieSealer(await keyringFrom(readKeyFile(keyFile), "owner"));
      expect((await owner.unseal(alice.sealed))?.rt).toBe(alice.tokens.rt!);
      expect(await owner.unsealText(alice.row.refreshSealed!)).toBe(alice.tokens.rt!);
    },
    60_000,
  );

  onSqlite("the data folder is 0700, the database, its WAL and the key file 0600", () => {
    const dbPath = join(stack.dataDir, "gateway.db");
    expect(mode(stack.dataDir)).toBe(0o700);
    for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, join(stack.dataDir, "session.key")]) {
      expect([file, mode(file)]).toEqual([file, 0o600]);
    }
  });

  test("a database file others can read is narrowed to 0600 when opened", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "old.db");
    await (await openStorage(dbPath)).close();
    chmodSync(dbPath, 0o644);
    await (await openStorage(dbPath)).close();
    expect(mode(dbPath)).toBe(0o600);
  });

  test("a key file that group or others can read stops start-up with one line", async () => {
    const dir = tempDir();
    const keyFile = join(dir, "session.key");
    writeFileSync(keyFile, `${"k".repeat(43)}\n`, { mode: 0o644 });
    chmodSync(keyFile, 0o644);
    const config = loadConfig({ DATABASE_PATH: join(dir, "gateway.db") });
    expect(config.sessionKeyFile).toBe(keyFile);
    expect(() => readKeyFile(keyFile)).toThrow(ConfigError);
    expect(() => readKeyFile(keyFile)).toThrow(
      /SESSION_KEY_FILE .* readable by group or others \(mode 644\): chmod 600/,
    );
  });
});

describe("client secrets of deployments", () => {
  onSqlite(
    "are recorded sealed, never in clear, and an admin deploy's secret comes back after a restart",
    async () => {
      const dbPath = join(stack.dataDir, "gateway.db");
      const deployed = await fetch(`${stack.adminUrl}/admin/v1/apps/extra/deploy`, {
        method: "POST",
        headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
        body: JSON.stringify({
          id: "extra",
          clients: [
            { clientId: "extra-server", redirectUris: ["http://127.0.0.1:1/cb"], clientSecret: EXTRA_SECRET },
          ],
        }),
      });
      expect(deployed.status).toBe(200);
      sqliteOf(stack.running.gateway.storage).exec("PRAGMA wal_checkpoint(TRUNCATE)");
      for (const file of [dbPath, `${dbPath}-wal`])
        if (existsSync(file)) {
          const bytes = readFileSync(file).toString("latin1");
          expect(bytes).not.toContain(EXTRA_SECRET);
          expect(bytes).not.toContain(CLIENT_SECRET);
        }
      const rows = (await sql(stack.running.gateway.storage).all("SELECT config FROM deployments")) as Array<{
        config: string;
      }>;
      expect(rows.some((row) => row.config.includes("clientSecretSealed"))).toBe(true);
      await stack.restart();
      expect(stack.running.gateway.apps.lookupClient("extra-server")?.client?.clientSecret).toBe(
        EXTRA_SECRET,
      );
      expect(stack.running.gateway.apps.lookupClient(SECRET_CLIENT_ID)?.client?.clientSecret).toBe(
        CLIENT_SECRET,
      );
    },
    60_000,
  );

  onSqlite(
    "a secret an older version recorded in clear is sealed in place at start-up",
    async () => {
      const dbPath = join(stack.dataDir, "gateway.db");
      const legacy = {
        id: "legacy",
        clients: [
          {
            clientId: "legacy-c",
            redirectUris: ["http://127.0.0.1:1/cb"],
            clientSecret: "legacy-clear-secret-0123456789",
          },
        ],
      };
      sqliteOf(stack.running.gateway.storage)
        .query("INSERT INTO deployments (app_id, config, created_at) VALUES ('legacy', ?, 1)")
        .run(JSON.stringify(legacy));
      await stack.restart();
      sqliteOf(stack.running.gateway.storage).exec("PRAGMA wal_checkpoint(TRUNCATE)");
      expect(readFileSync(dbPath).toString("latin1")).not.toContain("legacy-clear-secret-0123456789");
      expect(stack.running.gateway.apps.lookupClient("legacy-c")?.client?.clientSecret).toBe(
        "legacy-clear-secret-0123456789",
      );
      // Starting again records no new deployment when nothing changed.
      const count = () => sql(stack.running.gateway.storage).count("SELECT count(*) AS n FROM deployments");
      const before = await count();
      await stack.restart();
      expect(await count()).toBe(before);
    },
    60_000,
  );
});

describe("key rotation", () => {
  test("sessions sealed with the previous key still work, are re-sealed, and a revoke still reaches the provider", async () => {
    const bob = await login("keys-bob");
    const keyFile = join(stack.dataDir, "session.key");
    const [oldSecret] = readKeyFile(keyFile);
    const oldId = (await deriveKey(oldSecret!)).id;
    expect(keyIdOf(bob.sealed)).toBe(oldId);
    expect(keyIdOf(bob.row.refreshSealed!)).toBe(oldId);

    const printed: string[] = [];
    const config = loadConfig(stack.env);
    expect(await runKeys(config, { action: "rotate" }, (line) => printed.push(line))).toBe(0);
    const [newSecret, previous] = readKeyFile(keyFile);
    expect(previous).toBe(oldSecret!);
    const newId = (await deriveKey(newSecret!)).id;
    expect(printed.join("\n")).toContain(newId);
    expect(mode(keyFile)).toBe(0o600);

    await stack.restart();
    const gateway = stack.running.gateway;
    // Start-up re-sealed the refresh token on the row with the new key.
    const row = (await gateway.store.fresh(bob.row.id))!;
    expect(keyIdOf(row.refreshSealed!)).toBe(newId);
    // The browser's cookie, sealed with the previous key, still signs in.
    const session = await fetch(`${stack.url}/auth/session`, { headers: { cookie: bob.header } });
    expect(await session.json()).toEqual({ authenticated: true, user_id: "keys-bob" });
    const me = await fetch(`${stack.url}/v1/me`, { headers: { cookie: bob.header } });
    expect(me.status).toBe(200);

    printed.length = 0;
    await runKeys(config, { action: "status" }, (line) => printed.push(line));
    expect(printed.find((line) => line.includes(oldId))).toMatch(
      /previous +[1-9]\d* live sessions? +unseals only$/,
    );

    // A refresh re-seals the cookie with the new key and records it on the row.
    const refreshed = await bob.browser.fetch(`${stack.url}/auth/refresh`, {
      method: "POST",
      headers: { ...CSRF, cookie: bob.header },
      body: "{}",
    });
    expect(refreshed.status).toBe(200);
    const newCookie = bob.browser.cookieHeader(stack.url);
    expect(newCookie).not.toBe(bob.header);
    expect(keyIdOf(newCookie.slice(newCookie.indexOf("=") + 1))).toBe(newId);
    expect((await gateway.store.fresh(bob.row.id))!.cookieKeyId).toBe(newId);
    // Deployed client secrets were re-sealed with the new key at start-up too.
    const configs = (await sql(gateway.storage).all("SELECT config FROM deployments")) as Array<{
      config: string;
    }>;
    const kids = configs.flatMap((row) =>
      (JSON.parse(row.config).clients as Array<{ clientSecretSealed?: string }>)
        .filter((client) => client.clientSecretSealed)
        .map((client) => keyIdOf(client.clientSecretSealed!)),
    );
    expect(kids.length).toBeGreaterThan(0);
    expect(new Set(kids)).toEqual(new Set([newId]));

    // The operator's revoke unseals the re-sealed refresh token and reaches the provider.
    const { rt } = (await gateway.sessions.resolve(newCookie))!.cookie;
    const revokes = stack.idp.calls.revoke ?? 0;
    const revoked = await fetch(`${stack.adminUrl}/admin/v1/sessions/${bob.row.id}`, {
      method: "DELETE",
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(revoked.status).toBe(200);
    expect(stack.idp.calls.revoke).toBe(revokes + 1);
    const introspected = await fetch(`${stack.idp.adminUrl}/admin/oauth2/introspect`, {
      method: "POST",
      headers: {
        authorization: "Bearer test-idp-admin-key",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token: rt! }).toString(),
    });
    expect(await introspected.json()).toMatchObject({ active: false });
  }, 60_000);

  test("prune drops a previous key once no live session needs it; its cookies are then refused", async () => {
    const carol = await login("keys-carol");
    const keyFile = join(stack.dataDir, "session.key");
    const config = loadConfig(stack.env);
    rotateKeyFile(keyFile);
    await stack.restart();
    const printed: string[] = [];
    const before = readKeyFile(keyFile).length;
    expect(before).toBeGreaterThanOrEqual(2);
    // Carol's cookie still uses the previous key: prune keeps that key.
    await runKeys(config, { action: "prune" }, (line) => printed.push(line));
    const carolKey = (await stack.running.gateway.store.fresh(carol.row.id))!.cookieKeyId;
    const kept = await Promise.all(readKeyFile(keyFile).map(async (secret) => (await deriveKey(secret)).id));
    expect(kept).toContain(carolKey!);
    // Once every session on older keys has ended, prune removes them and old cookies stop working.
    const currentId = (await deriveKey(readKeyFile(keyFile)[0]!)).id;
    for (const row of await stack.running.gateway.store.listLive({}, 100))
      if (row.cookieKeyId !== currentId) await stack.running.gateway.sessions.end(row.id, "test", null);
    expect(await runKeys(config, { action: "prune" }, (line) => printed.push(line))).toBe(0);
    expect(readKeyFile(keyFile)).toHaveLength(1);
    await stack.restart();
    const ring = new CookieSealer(await keyringFrom(readKeyFile(keyFile), "pruned"));
    expect(await ring.unseal(carol.sealed)).toBeNull();
    const session = await fetch(`${stack.url}/auth/session`, { headers: { cookie: carol.header } });
    expect(await session.json()).toEqual({ authenticated: false, reason: "no_session" });
  }, 60_000);

  test("SESSION_SECRET_PREVIOUS keeps cookies sealed with the previous SESSION_SECRET working", async () => {
    const first = "a".repeat(40);
    const second = "b".repeat(40);
    await stack.restart({ SESSION_SECRET: first });
    const dave = await login("keys-dave");
    await stack.restart({ SESSION_SECRET: second, SESSION_SECRET_PREVIOUS: first });
    const ok = await fetch(`${stack.url}/auth/session`, { headers: { cookie: dave.header } });
    expect(await ok.json()).toEqual({ authenticated: true, user_id: "keys-dave" });
    expect(keyIdOf((await stack.running.gateway.store.fresh(dave.row.id))!.refreshSealed!)).toBe(
      (await deriveKey(second)).id,
    );
    await stack.restart({ SESSION_SECRET: second });
    const gone = await fetch(`${stack.url}/auth/session`, { headers: { cookie: dave.header } });
    expect(await gone.json()).toEqual({ authenticated: false, reason: "no_session" });
    await stack.restart();
  }, 60_000);
});

describe("a secret an older version kept in the database", () => {
  test("is moved to the key file as a previous key and erased from the database file", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "gateway.db");
    const legacy = `legacy-${"s".repeat(40)}`;
    const storage = await openStorage(dbPath);
    await sql(storage).run("INSERT INTO settings (key, value) VALUES ('session_secret', ?)", legacy);
    sqliteOf(storage).exec("PRAGMA wal_checkpoint(TRUNCATE)");
    await storage.close();
    expect(readFileSync(dbPath).toString("latin1")).toContain(legacy);

    const { createGateway } = await import("../../src/server/gateway.ts");
    const { AppRegistry, DEFAULT_APPS } = await import("../../src/server/apps/registry.ts");
    const logs: string[] = [];
    const gateway = await createGateway({
      config: loadConfig({ DATABASE_PATH: dbPath, COOKIE_SECURE: "false" }),
      apps: new AppRegistry(DEFAULT_APPS, { acceptAnyClient: true }),
      log: (_level, message) => logs.push(message),
    });
    gateway.close();
    const secrets = readKeyFile(join(dir, "session.key"));
    expect(secrets).toHaveLength(2);
    expect(secrets[1]).toBe(legacy);
    for (const file of [dbPath, `${dbPath}-wal`])
      if (existsSync(file)) expect(readFileSync(file).toString("latin1")).not.toContain(legacy);
    expect(logs).toContain("moved a session secret out of the database");
  });
});
