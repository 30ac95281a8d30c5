/**
 * One rule for OAuth clients: a bearer token whose client (learned by introspection) is in no app is
 * 401 unknown_client, unless the built-in default app (any client) is in force. Against a small
 * provider on a real socket that answers discovery and introspection for two tokens.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { idTokenRefusal } from "../../src/server/auth/id-token.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { tempDir } from "../helpers/stack.ts";

const TOKENS: Record<string, string> = { "token-known": "known-web", "token-stray": "stray-product" };
let provider: ReturnType<typeof Bun.serve>;
const gateways: RunningGateway[] = [];

beforeAll(() => {
  provider = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const issuer = `http://127.0.0.1:${provider.port}`;
      if (url.pathname === "/.well-known/openid-configuration")
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
        });
      if (url.pathname === "/admin/oauth2/introspect") {
        const token = new URLSearchParams(await request.text()).get("token") ?? "";
        const client = TOKENS[token];
        return Response.json(
          client
            ? { active: true, sub: `user-of-${client}`, client_id: client, token_use: "access_token" }
            : { active: false },
        );
      }
      return new Response("not found", { status: 404 });
    },
  });
});
afterAll(async () => {
  for (const running of gateways) await running.stop();
  provider.stop(true);
}, 30_000);

async function gatewayWith(apps: AppsFile | undefined) {
  const issuer = `http://127.0.0.1:${provider.port}`;
  const running = await startGateway({
    config: loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      OIDC_ISSUER: issuer,
      IDP_ADMIN_API_KEY: "key",
    }),
    apps,
    log: () => {},
  });
  gateways.push(running);
  return running;
}

const APPS: AppsFile = {
  apps: [{ id: "ours", clients: [{ clientId: "known-web", redirectUris: ["http://127.0.0.1:1/cb"] }] }],
};

describe("bearer tokens of clients in no app", () => {
  test("a token minted for a client that is in no app is 401 unknown_client; ours works", async () => {
    const gw = await gatewayWith(APPS);
    const stray = await fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: "Bearer token-stray" } });
    expect(stray.status).toBe(401);
    expect(await stray.json()).toMatchObject({ code: "unknown_client" });
    const create = await fetch(`${gw.publicUrl}/v1/resources`, {
      method: "POST",
      headers: { authorization: "Bearer token-stray", "content-type": "application/json" },
      body: JSON.stringify({ type: "team", name: "not ours" }),
    });
    expect(create.status).toBe(401);
    const count = await sql(gw.gateway.storage).get(
      "SELECT count(*) AS n FROM resources WHERE owner_id LIKE 'user-of-%'",
    );
    expect(count).toEqual({ n: 0 });
    // A known client's token writes with no CSRF header (bearer calls need none).
    const ours = await fetch(`${gw.publicUrl}/v1/resources`, {
      method: "POST",
      headers: { authorization: "Bearer token-known", "content-type": "application/json" },
      body: JSON.stringify({ type: "_nope", name: "x" }),
    });
    expect(ours.status).toBe(404);
    expect(await ours.json()).toMatchObject({ code: "unknown_type" });
    const known = await fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: "Bearer token-known" } });
    expect(await known.json()).toEqual({
      userId: "user-of-known-web",
      clientId: "known-web",
      appId: "ours",
      via: "bearer",
    });
  });

  test("with the built-in default app (no apps file) any client is accepted", async () => {
    const gw = await gatewayWith(undefined);
    const stray = await fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: "Bearer token-stray" } });
    expect(stray.status).toBe(200);
    expect(await stray.json()).toMatchObject({ clientId: "stray-product", appId: "default" });
  });
});

describe("ID token checks beyond the signature", () => {
  const base = { iss: "https://idp", sub: "alice", aud: "web" };
  test.each([
    ["one audience, no azp, no nonce", base, undefined, undefined],
    ["azp is this client", { ...base, azp: "web" }, undefined, undefined],
    ["several audiences with azp", { ...base, aud: ["web", "api"], azp: "web" }, undefined, undefined],
    ["several audiences without azp", { ...base, aud: ["web", "api"] }, undefined, "invalid_id_token"],
    ["azp is another client", { ...base, azp: "other" }, undefined, "invalid_id_token"],
    ["the nonce sent", { ...base, nonce: "n1" }, "n1", undefined],
    ["another nonce", { ...base, nonce: "n2" }, "n1", "invalid_nonce"],
    ["no nonce in the token", base, "n1", "invalid_nonce"],
    ["a nonce nobody sent", { ...base, nonce: "n1" }, undefined, "invalid_nonce"],
  ] as Array<[string, Record<string, unknown>, string | undefined, string | undefined]>)(
    "%s",
    (_label, payload, nonce, code) => {
      expect(idTokenRefusal(payload, "web", nonce)?.code).toBe(code as never);
    },
  );
});
