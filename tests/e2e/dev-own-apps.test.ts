/**
 * `gateway dev` with the developer's own apps: GATEWAY_CONFIG's clients and `--app <origin>` are
 * registered at the development provider and the gateway (loopback addresses only, the rest named at
 * start-up); a sign-in from that origin works, another origin is refused 403 origin_not_allowed.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Browser } from "../../src/devidp/browser.ts";
import { CSRF, consentFlow, freePort, type Stack, tempDir } from "../helpers/stack.ts";

const root = join(import.meta.dir, "../..");
const main = join(root, "src/server/main.ts");
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

/** Signs `user` in with `clientId` and `redirectUri`, posting the code from `origin` as the app's page does. */
async function signInFrom(
  gatewayUrl: string,
  issuer: string,
  clientId: string,
  redirectUri: string,
  origin: string,
  user: string,
) {
  const stackLike = { url: gatewayUrl, idp: { issuer }, redirectUri } as unknown as Stack;
  const flow = await consentFlow(stackLike, user, clientId, new Browser());
  const accepted = await flow.accept();
  expect(accepted.status).toBe(200);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  const token = await flow.exchange(redirect_to, { headers: { origin } });
  return { browser: flow.browser, token };
}

test("gateway dev registers GATEWAY_CONFIG's and --app's clients: sign-in from their origins works, another origin is refused", async () => {
  const port = freePort();
  const idpPort = freePort();
  const appPort = freePort();
  const shopPort = freePort();
  const dir = tempDir("sg-dev-apps-");
  const shopOrigin = `http://127.0.0.1:${shopPort}`;
  writeFileSync(
    join(dir, "apps.json"),
    JSON.stringify({
      apps: [
        {
          id: "shop",
          clients: [
            {
              clientId: "shop-web",
              redirectUris: ["https://shop.example.com/callback", `${shopOrigin}/callback`],
            },
            { clientId: "shop-ios", redirectUris: ["com.example.shop:/cb"] },
            {
              clientId: "shop-server",
              redirectUris: [`${shopOrigin}/server-callback`],
              clientSecret: "shop-server-secret/0123456789",
            },
          ],
          types: { basket: { visibility: "members" } },
        },
      ],
    }),
  );
  child = Bun.spawn(["bun", main, "dev", "--app", `http://localhost:${appPort}`], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      ADMIN_PORT: String(freePort()),
      DEV_IDP_PORT: String(idpPort),
      DEMO_PORT: String(freePort()),
      GATEWAY_CONFIG: join(dir, "apps.json"),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const issuer = `http://127.0.0.1:${idpPort}`;
  await waitFor(`${url}/healthz`);

  // The apps file's client, from its own origin: signed in, a member of the app, its types in force.
  const appOrigin = `http://localhost:${appPort}`;
  const shop = await signInFrom(url, issuer, "shop-web", `${shopOrigin}/callback`, shopOrigin, "sam");
  expect(shop.token.status).toBe(200);
  const fromShop = { ...CSRF, origin: shopOrigin };
  const me = await shop.browser.fetch(`${url}/v1/me`, { headers: fromShop });
  expect(me.status).toBe(200);
  expect(await me.json()).toEqual({ userId: "sam", clientId: "shop-web", appId: "shop", via: "cookie" });
  const basket = await shop.browser.fetch(`${url}/v1/resources`, {
    method: "POST",
    headers: fromShop,
    body: JSON.stringify({ type: "basket", name: "Sam's basket" }),
  });
  expect(basket.status).toBe(200);
  expect(await basket.json()).toMatchObject({ type: "basket", name: "Sam's basket", visibility: "members" });

  // --app: the client local-<port>, with the page itself as the redirect URI (the SDK's default).
  const local = await signInFrom(url, issuer, `local-${appPort}`, `${appOrigin}/`, appOrigin, "lee");
  expect(local.token.status).toBe(200);
  const leeMe = await local.browser.fetch(`${url}/v1/me`, { headers: { origin: appOrigin } });
  expect(await leeMe.json()).toEqual({
    userId: "lee",
    clientId: `local-${appPort}`,
    appId: `local-${appPort}`,
    via: "cookie",
  });
  // An origin registered nowhere (here: the apps file's left-out one) is refused, and nothing is created.
  for (const origin of ["http://localhost:1", "https://shop.example.com"]) {
    const refused = await local.browser.fetch(`${url}/v1/resources`, {
      method: "POST",
      headers: { ...CSRF, origin },
      body: JSON.stringify({ type: "team", name: "Refused team" }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "origin_not_allowed" });
  }
  const leeList = await local.browser.fetch(`${url}/v1/resources?type=team`, {
    headers: { origin: appOrigin },
  });
  expect(leeList.status).toBe(200);
  expect(JSON.stringify(await leeList.json())).not.toContain("Refused team");
  // The left-out redirect URI is not registered: the gateway refuses it.
  const offMachine = new URLSearchParams({
    response_type: "code",
    client_id: "shop-web",
    redirect_uri: "https://shop.example.com/callback",
    state: "state-0123456789",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  const notRegistered = await fetch(`${url}/auth/authorize?${offMachine}`, { redirect: "manual" });
  expect(notRegistered.status).toBe(400);
  expect(await notRegistered.json()).toMatchObject({ code: "invalid_redirect_uri" });

  // `gateway token` knows the apps file's clients too, a confidential one with its secret.
  const issued = Bun.spawnSync(["bun", main, "token", "sky", "--client", "shop-server"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      DEV_IDP_PORT: String(idpPort),
      GATEWAY_CONFIG: join(dir, "apps.json"),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect([issued.exitCode, issued.stderr.toString()]).toEqual([
    0,
    expect.stringContaining('an access token for "sky" (client shop-server)'),
  ]);
  const bearer = await fetch(`${url}/v1/me`, {
    headers: { authorization: `Bearer ${issued.stdout.toString().trim()}` },
  });
  expect(await bearer.json()).toEqual({
    userId: "sky",
    clientId: "shop-server",
    appId: "shop",
    via: "bearer",
  });

  child.kill();
  const stdout = await new Response(child.stdout as ReadableStream).text();
  const stderr = await new Response(child.stderr as ReadableStream).text();
  // The banner names each client to paste into the SDK, with the gateway on the page's own host.
  expect(stdout).toContain(
    `createClient({ gatewayUrl: "http://localhost:${port}", clientId: "local-${appPort}" })  (public)`,
  );
  expect(stdout).toContain(`redirect URIs ${appOrigin}/, ${appOrigin}/callback`);
  expect(stdout).toContain(`createClient({ gatewayUrl: "http://127.0.0.1:${port}", clientId: "shop-web" })`);
  expect(stdout).toContain(`clientId: "shop-server" })  (confidential)`);
  // What dev left out is named, one line each.
  expect(stderr).toContain(
    `gateway dev: GATEWAY_CONFIG ${join(dir, "apps.json")}: client "shop-web": left out "https://shop.example.com/callback" (gateway dev registers loopback http(s) addresses only)`,
  );
  expect(stderr).toContain(`client "shop-ios" is not registered: no loopback redirect URI`);
}, 60_000);

test("gateway dev --app refuses what is not a loopback origin, or one port twice, with one line and exit 2", () => {
  const dir = tempDir("sg-dev-apps-bad-");
  for (const [args, line] of [
    [
      ["--app", "https://app.example.com"],
      'gateway dev: --app must be a loopback origin (localhost, 127.0.0.0/8 or [::1]): gateway dev signs in anyone and stays on this machine, got "https://app.example.com" (gateway dev --help shows the usage)',
    ],
    [
      ["--app", "localhost:3000"],
      'gateway dev: --app must be an http(s) origin like http://localhost:3000 (scheme, host and port, no path), got "localhost:3000" (gateway dev --help shows the usage)',
    ],
    [
      ["--app", "http://localhost:3000", "--app", "http://127.0.0.1:3000"],
      'gateway dev: --app names the app "local-3000" twice (one app per port) (gateway dev --help shows the usage)',
    ],
  ] as const) {
    const run = Bun.spawnSync(["bun", main, "dev", ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", PORT: String(freePort()), DEV_IDP_PORT: String(freePort()) },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect([run.exitCode, run.stderr.toString().trim(), run.stdout.toString()]).toEqual([2, line, ""]);
  }
});
