/** `gateway dev`: the development provider and the gateway together; a person signs in from the landing page. */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { LANDING_CLIENT_ID } from "../../src/server/landing.ts";
import { CSRF, freePort, type Stack, signIn, tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
let child: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => child?.kill());

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error(`${url} never answered`);
}

test("dev starts both, prints the URLs, and the landing client signs in", async () => {
  const port = freePort();
  const idpPort = freePort();
  const demoPort = freePort();
  const dir = tempDir("sg-dev-");
  child = Bun.spawn(["bun", join(root, "src/server/main.ts"), "dev"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      ADMIN_PORT: String(freePort()),
      DEV_IDP_PORT: String(idpPort),
      DEMO_PORT: String(demoPort),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);

  const landing = await fetch(`${url}/`);
  expect(landing.headers.get("content-type")).toContain("text/html");
  const home = await landing.text();
  expect(home).toContain("Sign in");
  // dev is development: the landing page links the demo app, and an unregistered redirect URI (the
  // landing page opened at localhost) is told the registered one.
  expect(home).toContain(`href="http://127.0.0.1:${demoPort}/"`);
  const atLocalhost = new URLSearchParams({
    response_type: "code",
    client_id: LANDING_CLIENT_ID,
    redirect_uri: `http://localhost:${port}/`,
    state: "state-0123456789",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  const refused = await fetch(`${url}/auth/authorize?${atLocalhost}`, { redirect: "manual" });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toContain(`Registered for it: "${url}/"`);
  const script = await (await fetch(`${url}/landing.js`)).text();
  expect(script).toContain(JSON.stringify(LANDING_CLIENT_ID));
  expect(script).toContain("/auth/authorize");

  const demo = await fetch(`http://127.0.0.1:${demoPort}/config.json`);
  expect(await demo.json()).toEqual({ gatewayUrl: url, clientId: "demo-web" });
  const stackLike = {
    url,
    idp: { issuer: `http://127.0.0.1:${idpPort}` },
    redirectUri: `${url}/`,
  } as unknown as Stack;
  const { browser, token } = await signIn(stackLike, "dev-person", undefined, LANDING_CLIENT_ID);
  expect(token.status).toBe(200);
  expect(await (await browser.fetch(`${url}/auth/session`)).json()).toEqual({
    authenticated: true,
    user_id: "dev-person",
  });
  const logout = await browser.fetch(`${url}/auth/logout`, { method: "POST", headers: CSRF, body: "{}" });
  expect(logout.status).toBe(200);
  expect(await (await browser.fetch(`${url}/auth/session`)).json()).toEqual({
    authenticated: false,
    reason: "no_session",
  });

  // `gateway token` signs a user in through the running dev and prints an access token, alone on stdout.
  const env = {
    PATH: process.env.PATH ?? "",
    PORT: String(port),
    DEV_IDP_PORT: String(idpPort),
    DEMO_PORT: String(demoPort),
  };
  // `token --help` prints its usage and signs nobody in: no user named "--help" joins, none is credited.
  const credited = () => {
    const db = new Database(join(dir, "data", "dev.db"), { readonly: true });
    const users = db.query("SELECT user_id AS id FROM credits ORDER BY id").all() as Array<{ id: string }>;
    db.close();
    return users.map((row) => row.id);
  };
  for (const flag of ["--help", "-h"]) {
    const help = Bun.spawnSync(["bun", join(root, "src/server/main.ts"), "token", flag], {
      cwd: dir,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect([help.exitCode, help.stderr.toString()]).toEqual([0, ""]);
    expect(help.stdout.toString()).toStartWith("Usage: gateway token <user> [--client <id>]\n");
  }
  const dashed = Bun.spawnSync(["bun", join(root, "src/server/main.ts"), "token", "--", "--help"], {
    cwd: dir,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(dashed.exitCode).toBe(2);
  expect(dashed.stdout.toString()).toBe("");
  expect(credited()).toEqual(["dev-person"]);
  const issued = Bun.spawnSync(["bun", join(root, "src/server/main.ts"), "token", "token-tia"], {
    cwd: dir,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(issued.exitCode).toBe(0);
  const accessToken = issued.stdout.toString().trim();
  expect(accessToken).toMatch(/^[\w.~+/-]+=*$/);
  expect(issued.stderr.toString()).toContain('an access token for "token-tia" (client demo-web)');
  expect(credited()).toEqual(["dev-person", "token-tia"]);
  const me = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(me.status).toBe(200);
  expect(await me.json()).toEqual({
    userId: "token-tia",
    clientId: "demo-web",
    appId: "demo",
    via: "bearer",
  });
  // Another of dev's clients; an unknown one is named with the known ones.
  const landingToken = Bun.spawnSync(
    ["bun", join(root, "src/server/main.ts"), "token", "token-tia", "--client", LANDING_CLIENT_ID],
    { cwd: dir, env, stdout: "pipe", stderr: "pipe" },
  );
  expect(landingToken.stderr.toString()).toContain("(client gateway-landing)");
  expect(landingToken.exitCode).toBe(0);
  const unknown = Bun.spawnSync(
    ["bun", join(root, "src/server/main.ts"), "token", "tia", "--client", "nope"],
    {
      cwd: dir,
      env,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stdout.toString()).toBe("");
  expect(unknown.stderr.toString().trim()).toBe(
    'gateway token: "nope" is not a client of gateway dev; its clients are gateway-landing, demo-web',
  );

  child.kill();
  const printed =
    (await new Response(child.stdout as ReadableStream).text()) +
    (await new Response(child.stderr as ReadableStream).text());
  expect(printed).toContain(`gateway        ${url}/`);
  expect(printed).toContain(`http://127.0.0.1:${idpPort}`);
  expect(printed).toMatch(/NOT FOR PRODUCTION/);
  expect(printed).toContain(`demo app       http://127.0.0.1:${demoPort}/`);
}, 60_000);
