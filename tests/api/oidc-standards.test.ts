/**
 * The gateway follows the RFCs, not one provider's habits, against a small provider on a real socket
 * whose answers each test shapes: discovery redirects and the issuer check, RFC 8414 metadata and
 * explicit endpoints for revocation and introspection, introspection by client credentials and
 * without `sub`, HS256 and `none` ID tokens, a rotated signing key, logged causes, and the consent
 * endpoints of a provider without Hydra's consent API.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { countLive } from "../../src/server/auth/session-upkeep.ts";
import { ConfigError, loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import { type FakeOidc, startFakeOidc } from "../helpers/fake-oidc.ts";
import { CSRF, tempDir } from "../helpers/stack.ts";

const REDIRECT = "http://127.0.0.1:5999/cb";
const SECRET = "fake-server-secret-0123456789abcdef";
const APPS: AppsFile = {
  apps: [
    {
      id: "fake",
      clients: [
        { clientId: "fake-web", redirectUris: [REDIRECT] },
        { clientId: "fake-server", redirectUris: [REDIRECT], clientSecret: SECRET },
      ],
      types: { team: {} },
    },
  ],
};

let fake: FakeOidc;
const running: RunningGateway[] = [];
let logs: string[] = [];
beforeEach(async () => {
  fake?.stop();
  fake = await startFakeOidc();
  logs = [];
});
afterAll(async () => {
  for (const gw of running) await gw.stop();
  fake?.stop();
}, 30_000);

async function gateway(env: Record<string, string> = {}) {
  const gw = await startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      OIDC_ISSUER: fake.url,
      COOKIE_SECURE: "false",
      ...env,
    }),
    apps: APPS,
    log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields })),
  });
  running.push(gw);
  return gw;
}

const signIn = (gw: RunningGateway, clientId = "fake-web") =>
  fetch(`${gw.publicUrl}/auth/token`, {
    method: "POST",
    headers: CSRF,
    body: JSON.stringify({
      code: "c",
      code_verifier: "v".repeat(43),
      redirect_uri: REDIRECT,
      client_id: clientId,
    }),
  });
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

/** A sign-in refused as 502 id_token_invalid: no cookie set, no session started. */
async function expectRefusedSignIn(gw: RunningGateway, res: Response, liveBefore = 0) {
  expect(res.status).toBe(502);
  expect(await res.json()).toMatchObject({ code: "id_token_invalid" });
  expect(res.headers.getSetCookie()).toEqual([]);
  expect(await countLive(gw.gateway.storage)).toBe(liveBefore);
}

describe("discovery", () => {
  test("a same-origin redirect of the discovery URL (a trailing slash) is followed", async () => {
    fake.settings.redirectDiscoveryTo = "/.well-known/openid-configuration/";
    const gw = await gateway();
    const res = await signIn(gw);
    expect(res.status).toBe(200);
  });

  test("a discovery issuer other than OIDC_ISSUER stops start-up with one line naming OIDC_ISSUER", async () => {
    fake.settings.issuer = "https://someone-else.example";
    const failed = await gateway().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ConfigError);
    expect((failed as Error).message).toMatch(
      /^configuration error: OIDC_ISSUER does not match: .*someone-else/,
    );
  });
});

describe("revocation", () => {
  test("without revocation_endpoint in discovery, RFC 8414 metadata provides it and sign-out revokes there", async () => {
    fake.settings.omit = ["revocation_endpoint"];
    fake.settings.authorizationServer = { revocation_endpoint: `${fake.url}/revoke` };
    const gw = await gateway();
    const cookie = cookieOf(await signIn(gw));
    expect(
      (await fetch(`${gw.publicUrl}/auth/logout`, { method: "POST", headers: { ...CSRF, cookie } })).status,
    ).toBe(200);
    expect(fake.seen.get("/revoke")?.length).toBe(1);
  });

  test("IDP_REVOCATION_URL wins over metadata", async () => {
    const gw = await gateway({ IDP_REVOCATION_URL: `${fake.url}/revoke-here` });
    const cookie = cookieOf(await signIn(gw));
    await fetch(`${gw.publicUrl}/auth/logout`, { method: "POST", headers: { ...CSRF, cookie } });
    expect(fake.seen.get("/revoke-here")?.length).toBe(1);
    expect(fake.seen.get("/revoke")).toBeUndefined();
  });

  test("no revocation endpoint at all: a warning at start-up and at each sign-out, never silent", async () => {
    fake.settings.omit = ["revocation_endpoint"];
    const gw = await gateway();
    expect(logs.some((l) => l.includes("revocation is impossible"))).toBe(true);
    const cookie = cookieOf(await signIn(gw));
    logs = [];
    const out = await fetch(`${gw.publicUrl}/auth/logout`, { method: "POST", headers: { ...CSRF, cookie } });
    expect(await out.json()).toEqual({ ok: true });
    expect(logs.filter((l) => l.includes("revocation is impossible")).length).toBe(1);
  });
});

describe("introspection", () => {
  test("the discovery endpoint with client_secret_basic credentials; without `sub`, userinfo names the user", async () => {
    fake.settings.introspection = { active: true, username: "dot-style", client_id: "fake-web" };
    fake.settings.userinfo = { sub: "user-from-userinfo" };
    const gw = await gateway({
      IDP_INTROSPECTION_CLIENT_ID: "rs",
      IDP_INTROSPECTION_CLIENT_SECRET: "rs-secret",
    });
    const me = await fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: "Bearer some-token" } });
    expect(await me.json()).toEqual({
      userId: "user-from-userinfo",
      clientId: "fake-web",
      appId: "fake",
      via: "bearer",
    });
    const seen = fake.seen.get("/introspect")!.at(-1)!;
    expect(seen.authorization).toBe(`Basic ${btoa("rs:rs-secret")}`);
    expect(seen.form.get("token")).toBe("some-token");
  });

  test("IDP_INTROSPECTION_URL wins; a broken introspection URL is an error line at start-up", async () => {
    await gateway({
      IDP_ADMIN_API_KEY: "k",
      IDP_INTROSPECTION_URL: `${fake.url}/nowhere`,
    });
    expect(logs.some((l) => l.includes("introspection does not work") && l.includes("/nowhere"))).toBe(true);
  });
});

describe("ID tokens", () => {
  test("HS256 ID tokens verify with a confidential client's secret", async () => {
    fake.settings.idTokenAlg = "HS256";
    fake.settings.idTokenSecret = SECRET;
    const gw = await gateway();
    expect((await signIn(gw, "fake-server")).status).toBe(200);
  });

  test("an HS256 ID token for a public client, or one signed with another secret, is 502 id_token_invalid and logged", async () => {
    fake.settings.idTokenAlg = "HS256";
    fake.settings.idTokenSecret = "not-the-secret-0123456789abcdef";
    const gw = await gateway();
    for (const client of ["fake-web", "fake-server"]) {
      const res = await signIn(gw, client);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: "id_token_invalid" });
    }
    expect(logs.some((l) => l.includes("an ID token did not verify"))).toBe(true);
  });

  test("an unsigned (alg none) ID token is always refused", async () => {
    fake.settings.idTokenAlg = "none";
    const gw = await gateway();
    const res = await signIn(gw, "fake-server");
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: "id_token_invalid" });
  });

  test("a rotated signing key is accepted at once (the key set is fetched again on an unknown kid)", async () => {
    const gw = await gateway();
    expect((await signIn(gw)).status).toBe(200);
    const fetched = fake.seen.get("/jwks")?.length ?? 0;
    await fake.rotateKey();
    await Bun.sleep(1100); // the key set is fetched again at most once a second
    expect((await signIn(gw)).status).toBe(200);
    expect(fake.seen.get("/jwks")!.length).toBe(fetched + 1);
  });

  test("a key rotated within a second of the last key-set fetch: the first sign-in is accepted (the rest of the cooldown is waited out)", async () => {
    const gw = await gateway();
    expect((await signIn(gw)).status).toBe(200); // the key set was just fetched
    const fetched = fake.seen.get("/jwks")!.length;
    await fake.rotateKey();
    const res = await signIn(gw);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ authenticated: true, user_id: "fake-user" });
    expect(fake.seen.get("/jwks")!.length).toBe(fetched + 1);
  });

  test("a kid the provider never published is refused after one more fetch of the key set, and no session starts", async () => {
    const gw = await gateway();
    expect((await signIn(gw)).status).toBe(200);
    const fetched = fake.seen.get("/jwks")!.length;
    const sessions = await countLive(gw.gateway.storage);
    await fake.rotateKey();
    fake.settings.hideSigningKey = true;
    await expectRefusedSignIn(gw, await signIn(gw), sessions);
    expect(fake.seen.get("/jwks")!.length).toBe(fetched + 1);
  });
});

describe("the ID token and the access token name one user", () => {
  test("an ID token without exp is 502 id_token_invalid: no cookie, no session, the cause logged", async () => {
    fake.settings.idTokenWithoutExp = true;
    const gw = await gateway();
    await expectRefusedSignIn(gw, await signIn(gw));
    expect(logs.some((l) => l.includes("an ID token did not verify") && l.includes("exp"))).toBe(true);
  });

  test("userinfo naming another subject than the ID token is 502 id_token_invalid and starts no session", async () => {
    fake.settings.userinfo = { sub: "someone-else" };
    const gw = await gateway();
    await expectRefusedSignIn(gw, await signIn(gw));
    expect(fake.seen.get("/userinfo")?.length).toBe(1);
    expect(logs.some((l) => l.includes("the ID token's subject is not the access token's"))).toBe(true);
  });

  test("introspection naming another subject is refused; Hydra's pairwise obfuscated_subject is the same user, named as bearer calls name it", async () => {
    const env = { IDP_INTROSPECTION_CLIENT_ID: "rs", IDP_INTROSPECTION_CLIENT_SECRET: "rs-secret" };
    fake.settings.introspection = { active: true, sub: "someone-else", client_id: "fake-web" };
    const gw = await gateway(env);
    await expectRefusedSignIn(gw, await signIn(gw));
    fake.settings.introspection = {
      active: true,
      sub: "real-subject",
      obfuscated_subject: "fake-user",
      client_id: "fake-web",
    };
    const pairwise = await signIn(gw);
    expect(pairwise.status).toBe(200);
    // The access token's subject, which a bearer call with this grant resolves to: one id per person.
    expect(await pairwise.json()).toMatchObject({ user_id: "real-subject" });
    expect(await countLive(gw.gateway.storage)).toBe(1);
  });

  test("the same subject on both signs in, with one userinfo call", async () => {
    const gw = await gateway();
    const res = await signIn(gw);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user_id: "fake-user" });
    expect(fake.seen.get("/userinfo")?.length).toBe(1);
  });
});

describe("failures keep their reason", () => {
  test("an unreachable provider is 502 idp_unavailable, and the log says why", async () => {
    const gw = await gateway();
    fake.stop();
    const res = await signIn(gw);
    expect(res.status).toBe(502);
    expect(logs.some((l) => l.includes('"code":"idp_unavailable"') && l.includes("cause"))).toBe(true);
  });
});

describe("a provider without Hydra's consent API", () => {
  test("with IDP_CONSENT_API=none the consent endpoints answer 501 not_supported_by_provider", async () => {
    const gw = await gateway({ IDP_CONSENT_API: "none" });
    const request = await fetch(`${gw.publicUrl}/auth/consent-request?challenge=x`);
    expect(request.status).toBe(501);
    expect(await request.json()).toMatchObject({ code: "not_supported_by_provider" });
    const accept = await fetch(`${gw.publicUrl}/auth/consent/accept`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge: "x", subject: "u", grant_scope: ["openid"] }),
    });
    expect(accept.status).toBe(501);
    expect((await fetch(`${gw.publicUrl}/auth/consent?consent_challenge=x`)).status).toBe(501);
  });
});
