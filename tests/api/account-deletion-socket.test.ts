/**
 * Account deletion over real sockets, against the development provider (Hydra + Kratos APIs) with
 * KRATOS_ADMIN_URL set: the SDK's `auth.deleteAccount()` from an app server forwarding the user's
 * cookie; the user's cookie and bearer token refused at once (even though the provider is told only
 * after the answer); then the refresh token revoked at the provider and the Kratos identity deleted.
 * A bearer token alone cannot delete its account (no recent sign-in to show).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServerClient, GatewayError } from "../../packages/sdk/src/index.ts";
import { CLIENT_ID, CSRF, type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await stack.restart({ KRATOS_ADMIN_URL: stack.idp.kratosUrl });
}, 60_000);
afterAll(() => stack.stop());

async function signedIn(username: string) {
  const { browser } = await signIn(stack, username);
  const cookie = browser.cookieHeader(stack.url);
  const found = await stack.running.gateway.sessions.resolve(cookie);
  return { cookie, at: found!.cookie.at, rt: found!.cookie.rt! };
}

const me = (headers: Record<string, string>) => fetch(`${stack.url}/v1/me`, { headers });

test("a bearer token alone cannot delete its account: 403 reauthentication_required, nothing changed", async () => {
  const { at } = await signedIn("sock-bearer");
  const res = await fetch(`${stack.url}/v1/me`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${at}` },
  });
  expect(res.status).toBe(403);
  expect(await res.json()).toMatchObject({ code: "reauthentication_required" });
  expect((await me({ authorization: `Bearer ${at}` })).status).toBe(200);
  expect(stack.idp.deletedIdentities).not.toContain("sock-bearer");
});

test("deleteAccount(): cookie and bearer refused at once, refresh token revoked, Kratos identity deleted", async () => {
  const { cookie, at, rt } = await signedIn("sock-del");
  expect((await me({ authorization: `Bearer ${at}` })).status).toBe(200); // now in the token cache
  const revokesBefore = stack.idp.calls.revoke ?? 0;
  const client = createServerClient({
    gatewayUrl: stack.url,
    request: new Request(stack.url, { headers: { cookie } }),
  });
  const report = await client.auth.deleteAccount();
  expect(report).toMatchObject({ userId: "sock-del", deletedNow: true, sessionsEnded: 1 });
  // Refused at once, whatever the provider has done yet.
  const byCookie = await fetch(`${stack.url}/v1/me`, { headers: { cookie } });
  expect(byCookie.status).toBe(403);
  expect(await byCookie.json()).toMatchObject({ code: "account_deleted" });
  const byBearer = await me({ authorization: `Bearer ${at}` });
  expect(byBearer.status).toBe(403);
  expect(await byBearer.json()).toMatchObject({ code: "account_deleted" });
  const refresh = await fetch(`${stack.url}/auth/refresh`, {
    method: "POST",
    headers: { ...CSRF, cookie },
    body: JSON.stringify({ client_id: CLIENT_ID }),
  });
  expect(refresh.status).toBe(403);
  expect(await refresh.json()).toMatchObject({ code: "account_deleted", reason: "deleted" });
  // Then, after the answer: the provider revoked the refresh token, Kratos lost the identity.
  await stack.running.gateway.accounts.idle();
  expect((stack.idp.calls.revoke ?? 0) - revokesBefore).toBe(1);
  const grant = await fetch(`${stack.idp.issuer}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: rt, client_id: CLIENT_ID }),
  });
  expect(grant.status).toBe(400);
  expect(await grant.json()).toMatchObject({ error: "invalid_grant" });
  expect(stack.idp.deletedIdentities).toEqual(["sock-del"]);
  // Once more: the session is gone, so the SDK says why.
  const again = await client.auth.deleteAccount().catch((error: unknown) => error);
  expect(again).toBeInstanceOf(GatewayError);
  expect((again as GatewayError).status).toBe(401);
});
