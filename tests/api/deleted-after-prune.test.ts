/**
 * A prune never brings a deleted account back. Deleted users are recorded under a pseudonym key derived
 * from the sealing key current at the deletion; `gateway keys prune` drops that key's secret (it no
 * longer unseals anything) but keeps its pseudonym key (a `pseudonym:` line of the key file, or the
 * SESSION_PSEUDONYM_KEYS value prune prints with SESSION_SECRET), so after a restart on the same
 * database and keys the deleted subject is still refused at /auth/token and with a bearer token the
 * provider still accepts (403 account_deleted), and nothing is given to it. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readKeyFile, rotateKeyFile } from "../../src/server/auth/key-file.ts";
import { deriveKey, keyringFrom, newSecret } from "../../src/server/auth/keyring.ts";
import { CookieSealer } from "../../src/server/auth/seal.ts";
import { ConfigError, loadConfig } from "../../src/server/config.ts";
import { runKeys } from "../../src/server/keys-command.ts";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  CLIENT_ID,
  codeFrom,
  openConsent,
  pkce,
  reachConsent,
  type Stack,
  signIn,
  startStack,
  tempDir,
} from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token" };
const PSEUDONYM_LINE = /^pseudonym:[A-Za-z0-9_-]{43}$/gm;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

const keyFile = () => join(stack.dataDir, "session.key");
const db = () => sql(stack.running.gateway.storage);

async function keys(action: "status" | "prune", env: Record<string, string> = {}) {
  const printed: string[] = [];
  const code = await runKeys(loadConfig({ ...stack.env, ...env }), { action }, (line) => printed.push(line));
  return { code, lines: printed };
}

async function deleteUser(user: string) {
  const res = await fetch(`${stack.adminUrl}/admin/v1/users/${user}`, { method: "DELETE", headers: ADMIN });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ userId: user, deletedNow: true });
  await stack.running.gateway.accounts.idle();
}

/**
 * An access token the provider gives `user` straight (an app exchanging its code itself): the gateway's
 * deletion revokes only the grants of its own sessions, so the provider still accepts this one.
 */
async function providerToken(user: string): Promise<string> {
  const browser = new Browser();
  const p = await pkce();
  const { challenge } = await reachConsent(stack, browser, user, p);
  const { redirect_to } = (await (await openConsent(stack, browser, challenge)).json()) as {
    redirect_to: string;
  };
  const callback = await codeFrom(stack, browser, redirect_to);
  const res = await fetch(`${stack.idp.issuer}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: callback.searchParams.get("code")!,
      code_verifier: p.verifier,
      redirect_uri: stack.redirectUri,
      client_id: CLIENT_ID,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function me(token: string): Promise<string> {
  const res = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  return res.status === 200 ? "200" : `${res.status} ${((await res.json()) as { code: string }).code}`;
}

/** Signing in again is refused with 403 account_deleted, and nothing is recorded under the id. */
async function expectSignInRefused(user: string) {
  const again = await signIn(stack, user);
  expect({ status: again.token.status, code: (again.body as { code?: string }).code }).toEqual({
    status: 403,
    code: "account_deleted",
  });
  expect(again.browser.cookieHeader(stack.url)).not.toMatch(/sg_session/);
  const traces = await db().get(
    `SELECT (SELECT count(*) FROM sessions WHERE user_id = ?1 AND ended_at IS NULL)
       + (SELECT count(*) FROM members WHERE user_id = ?1)
       + (SELECT count(*) FROM credits WHERE user_id = ?1) AS n`,
    user,
  );
  expect(Number(traces!.n)).toBe(0);
}

describe("a deleted account after its key is pruned", () => {
  test("key file: still refused at /auth/token and with a bearer token; the file keeps no secret of the pruned key", async () => {
    const U = "pruned-gone";
    expect((await signIn(stack, U)).token.status).toBe(200); // its consent is remembered
    const bearer = await providerToken(U);
    expect(await me(bearer)).toBe("200");
    await deleteUser(U);
    expect(await me(bearer)).toBe("403 account_deleted");
    const [pruned] = readKeyFile(keyFile());
    const prunedId = (await deriveKey(pruned!)).id;
    const oldCookie = await new CookieSealer(await keyringFrom([pruned!], "old")).seal({
      sid: "s",
      uid: U,
      cid: CLIENT_ID,
      at: "a",
      rt: undefined,
      aexp: 0,
    });
    // Rotate, restart (the process seals with the new key): nothing needs the old one, prune drops it.
    rotateKeyFile(keyFile());
    await stack.restart();
    const prune = await keys("prune");
    expect(prune).toEqual({
      code: 0,
      lines: [`keys: removed 1 previous key (${prunedId}) from ${keyFile()}`],
    });
    await stack.restart();
    // The same database and key file: the deleted subject is refused as before.
    expect(await me(bearer)).toBe("403 account_deleted");
    await expectSignInRefused(U);
    expect(await db().count("SELECT count(*) FROM deleted_users")).toBe(1);
    // The file holds the new secret and the pruned key's pseudonym key, never the pruned secret.
    const [current] = readKeyFile(keyFile());
    expect(readKeyFile(keyFile())).toEqual([current!]);
    const text = readFileSync(keyFile(), "utf8");
    expect(text).not.toContain(pruned!);
    expect(text.match(PSEUDONYM_LINE)).toHaveLength(1);
    expect(await stack.running.gateway.sealer.unseal(oldCookie)).toBeNull();
    expect((await keys("status")).lines).toContain(
      "pseudonym keys kept from pruned keys: 1 (they recognise accounts deleted while those keys sealed; they unseal nothing)",
    );
    // A later rotation keeps the pseudonym line.
    rotateKeyFile(keyFile());
    expect(readFileSync(keyFile(), "utf8").match(PSEUDONYM_LINE)).toHaveLength(1);
    await stack.restart();
    expect(await me(bearer)).toBe("403 account_deleted");
  }, 90_000);

  test("SESSION_SECRET: prune prints the SESSION_PSEUDONYM_KEYS that keeps the dropped secret's deleted accounts deleted", async () => {
    const W = "pruned-env-gone";
    const [first, second] = [newSecret(), newSecret()];
    await stack.restart({ SESSION_SECRET: first });
    expect((await signIn(stack, W)).token.status).toBe(200);
    await deleteUser(W);
    const rotated = { SESSION_SECRET: second, SESSION_SECRET_PREVIOUS: first };
    await stack.restart(rotated);
    const prune = await keys("prune", rotated);
    expect(prune.code).toBe(0);
    expect(prune.lines[0]).toBe(
      `keys: remove the secrets of keys ${(await deriveKey(first)).id} from SESSION_SECRET_PREVIOUS`,
    );
    const value = prune.lines[1]?.match(/^keys: and set SESSION_PSEUDONYM_KEYS=([^ ]+) \(/)?.[1];
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(value).not.toContain(first);
    // The operator drops the secret and sets the printed value.
    const pruned = { SESSION_SECRET: second, SESSION_PSEUDONYM_KEYS: value! };
    await stack.restart(pruned);
    await expectSignInRefused(W);
    expect((await keys("status", pruned)).lines).toContain(
      "pseudonym keys kept from pruned keys: 1 (they recognise accounts deleted while those keys sealed; they unseal nothing)",
    );
    await stack.restart();
  }, 90_000);

  test("a malformed pseudonym key (variable or key file line) stops start-up with one line naming where it is", async () => {
    const secret = newSecret();
    for (const [env, message] of [
      [
        { SESSION_SECRET: secret, SESSION_PSEUDONYM_KEYS: "too-short" },
        "configuration error: SESSION_PSEUDONYM_KEYS each key must be 43 base64url characters",
      ],
      [
        { SESSION_PSEUDONYM_KEYS: "k".repeat(43) },
        "configuration error: SESSION_PSEUDONYM_KEYS needs SESSION_SECRET (a key file keeps its own)",
      ],
    ] as const) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
    const file = join(tempDir(), "session.key");
    writeFileSync(file, `${secret}\npseudonym:not-a-key\n`, { mode: 0o600 });
    expect(() => readKeyFile(file)).toThrow(
      `configuration error: SESSION_KEY_FILE ${file} holds a pseudonym: line that is not 43 base64url characters`,
    );
  });
});
