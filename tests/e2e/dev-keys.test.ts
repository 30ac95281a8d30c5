/**
 * `gateway keys --dev` reads gateway dev's own database and key file, from real processes: status
 * counts dev's sessions and names the running dev process and the key it seals with; prune refuses
 * the key dev's sessions and the running process need, so a person signed in under dev stays signed in
 * across a rotation and a restart; plain `gateway keys` names serve's database as missing and creates
 * nothing.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readKeyFile } from "../../src/server/auth/key-file.ts";
import { deriveKey } from "../../src/server/auth/keyring.ts";
import { LANDING_CLIENT_ID } from "../../src/server/landing.ts";
import { waitReady } from "../helpers/ready.ts";
import { freePort, type Stack, signIn, tempDir } from "../helpers/stack.ts";

const main = join(import.meta.dir, "../../src/server/main.ts");
const dir = tempDir("sg-dev-keys-");
const env = {
  PATH: process.env.PATH ?? "",
  PORT: String(freePort()),
  ADMIN_PORT: String(freePort()),
  DEV_IDP_PORT: String(freePort()),
  DEMO_PORT: String(freePort()),
};
const url = `http://127.0.0.1:${env.PORT}`;
let dev: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => dev?.kill());

async function startDev() {
  dev = Bun.spawn(["bun", main, "dev"], { cwd: dir, env, stdout: "ignore", stderr: "ignore" });
  await waitReady(url);
  return dev.pid;
}

async function stopDev() {
  dev!.kill("SIGTERM");
  expect(await dev!.exited).toBe(0);
}

function keys(...args: string[]) {
  return keysWith({}, ...args);
}

function keysWith(extra: Record<string, string>, ...args: string[]) {
  const result = Bun.spawnSync(["bun", main, "keys", ...args], {
    cwd: dir,
    env: { ...env, ...extra },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
}

const devKeyFile = join(dir, "data", "dev-session.key");
const keyIds = () => Promise.all(readKeyFile(devKeyFile).map(async (secret) => (await deriveKey(secret)).id));

test("keys --dev counts gateway dev's sessions and process, and prune keeps what they need", async () => {
  const pid = await startDev();
  const stackLike = {
    url,
    idp: { issuer: `http://127.0.0.1:${env.DEV_IDP_PORT}` },
    redirectUri: `${url}/`,
  } as unknown as Stack;
  const { browser, token } = await signIn(stackLike, "dev-keys-hana", undefined, LANDING_CLIENT_ID);
  expect(token.status).toBe(200);
  const signedIn = async () => (await browser.fetch(`${url}/auth/session`)).json();
  expect(await signedIn()).toEqual({ authenticated: true, user_id: "dev-keys-hana" });
  const [first] = await keyIds();

  const status = keys("--dev");
  expect([status.code, status.err]).toEqual([0, ""]);
  expect(status.out).toContain(
    `keys from key file ./data/dev-session.key; sessions in ./data/dev.db (gateway dev)`,
  );
  expect(status.out).toMatch(
    new RegExp(`${first} +current +1 live session +1 running process seals with it\\n`),
  );
  expect(status.out).toMatch(new RegExp(`pid ${pid}  seals with ${first}`));
  // keys listens on nothing: a shell exporting serve's HOST still reads dev's keys (dev itself refuses it).
  const ageless = (run: { code: number; out: string; err: string }) => ({
    ...run,
    out: run.out.replace(/seen \d+ s ago/g, "seen"),
  });
  expect(ageless(keysWith({ HOST: "0.0.0.0", ADMIN_HOST: "0.0.0.0" }, "--dev"))).toEqual(ageless(status));

  // serve's keys: its database does not exist here, and asking does not create it.
  const serve = keys("status");
  expect(serve.code).toBe(1);
  expect(serve.out).toBe(
    "keys: no database at ./data/gateway.db (DATABASE_PATH): start the gateway first, or for gateway dev's keys run gateway keys --dev\n",
  );
  expect(existsSync(join(dir, "data", "gateway.db"))).toBe(false);

  expect(keys("rotate", "--dev").code).toBe(0);
  const [second] = await keyIds();
  expect(await keyIds()).toEqual([second!, first!]);
  const busy = keys("prune", "--dev");
  expect(busy.code).toBe(1);
  expect(busy.out).toBe(
    `keys: kept ${first}: 1 running process still seals with it (restart it first); 1 live session sealed with it (--force signs it out)\n`,
  );
  expect(await keyIds()).toEqual([second!, first!]);

  // Restarted, dev seals with the new key; hana's cookie still needs the first one, and keeps working.
  await stopDev();
  const restarted = await startDev();
  const after = keys("--dev");
  expect(after.out).toMatch(
    new RegExp(`${second} +current +0 live sessions +1 running process seals with it\\n`),
  );
  expect(after.out).toMatch(new RegExp(`${first} +previous +1 live session +unseals only\\n`));
  expect(after.out).toMatch(new RegExp(`pid ${restarted}  seals with ${second}`));
  const needed = keys("prune", "--dev");
  expect(needed.code).toBe(1);
  expect(needed.out).toBe(`keys: kept ${first}: 1 live session sealed with it (--force signs it out)\n`);
  await stopDev();
  await startDev();
  expect(await signedIn()).toEqual({ authenticated: true, user_id: "dev-keys-hana" });
}, 90_000);
