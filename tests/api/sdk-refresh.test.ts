/**
 * The SDK against a real gateway and the development provider with short-lived access tokens: when
 * the access token has expired, the next call refreshes once and succeeds; ten concurrent calls share
 * one refresh. Also the server client (bearer, no cookies, no CSRF header).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient, GatewayError } from "../../packages/sdk/src/index.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ accessTokenTtlSeconds: 2 });
}, 60_000);
afterAll(() => stack.stop());

/** A browser-mode client whose fetch goes through the test browser's cookie jar. */
async function browserClient(user: string) {
  const { browser } = await signIn(stack, user);
  const sent: Array<{ url: string; headers: Record<string, string> }> = [];
  const client = createClient({
    gatewayUrl: stack.url,
    clientId: "test-web",
    fetch: (url, init) => {
      sent.push({ url: String(url), headers: { ...(init?.headers as Record<string, string>) } });
      return browser.fetch(String(url), init);
    },
  });
  return { browser, client, sent };
}

const refreshes = () => stack.idp.calls["token:refresh_token"] ?? 0;

describe("SDK refresh on 401", () => {
  test("an expired access token: the next call refreshes once and succeeds", async () => {
    const { client, sent } = await browserClient("sdk-expiry");
    const created = await client.resource.create("team", { name: "Before expiry" });
    await Bun.sleep(1200); // the 2 s token's usable half has passed
    const before = refreshes();
    const list = await client.resource.list();
    expect(list.map((r) => r.id)).toContain(created.id);
    expect(refreshes() - before).toBe(1);
    const paths = sent.map((s) => new URL(s.url).pathname);
    expect(paths.slice(-3)).toEqual(["/v1/resources", "/auth/refresh", "/v1/resources"]);
    const refresh = sent.find((s) => s.url.endsWith("/auth/refresh"))!;
    expect(refresh.headers["x-service-csrf"]).toBe("1");
  });

  test("ten concurrent calls after expiry share one refresh and all succeed", async () => {
    const { client } = await browserClient("sdk-ten");
    const team = await client.resource.create("team", { name: "Ten" });
    await Bun.sleep(1200);
    const before = refreshes();
    const views = await Promise.all(Array.from({ length: 10 }, () => client.resource.get(team.id)));
    expect(views.every((v) => v.id === team.id && v.memberCount === 1)).toBe(true);
    expect(refreshes() - before).toBe(1);
  });

  test("when the refresh fails too, the call surfaces one typed 401", async () => {
    const { client, browser } = await browserClient("sdk-dead");
    const cookie = browser.cookieHeader(stack.url);
    const found = await stack.running.gateway.sessions.resolve(cookie);
    await stack.running.gateway.sessions.end(found!.row.id, "test", "test");
    let caught: unknown;
    try {
      await client.resource.list();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).status).toBe(401);
    expect((caught as GatewayError).code).toBe("unauthenticated");
    // In words, with the reason: the refresh's refusal, not the API's "send a valid bearer token".
    expect((caught as GatewayError).reason).toBe("revoked");
    expect((caught as GatewayError).message).toBe("Your session was revoked: sign in again.");
    expect(await client.auth.getSession()).toEqual({ authenticated: false, reason: "no_session" });
  });
});

describe("SDK on a server (bearer)", () => {
  test("sends the bearer, no cookie and no CSRF header; getSession names the token's user", async () => {
    const { browser } = await signIn(stack, "sdk-server");
    const found = await stack.running.gateway.sessions.resolve(browser.cookieHeader(stack.url));
    const sent: Array<Record<string, string>> = [];
    const server = createClient({
      gatewayUrl: stack.url,
      accessToken: found!.cookie.at,
      fetch: (url, init) => {
        sent.push({ ...(init?.headers as Record<string, string>), credentials: String(init?.credentials) });
        return fetch(url, init);
      },
    });
    expect(await server.auth.getSession()).toEqual({ authenticated: true, userId: "sdk-server" });
    const album = await server.resource.create("team", { name: "From a server" });
    expect(album.name).toBe("From a server");
    for (const headers of sent) {
      expect(headers.authorization).toBe(`Bearer ${found!.cookie.at}`);
      expect(headers["x-service-csrf"]).toBeUndefined();
      expect(headers.credentials).toBe("undefined");
    }
    // Not in a server client's type; without TypeScript it still refuses at run time.
    await expect((server.auth as unknown as { signIn(): Promise<void> }).signIn()).rejects.toMatchObject({
      code: "browser_only",
    });
    const anonymous = createClient({ gatewayUrl: stack.url, accessToken: "not-a-token" });
    expect(await anonymous.auth.getSession()).toEqual({ authenticated: false });
  });
});
