/**
 * Server-to-server credentials (bearer via introspection or userinfo, cached 60 s) and the Kratos
 * flow proxy, over real sockets. Also: no response body and no log line ever holds a token.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { kratosCsrfCookieName } from "../../src/devidp/index.ts";
import { CLIENT_ID, CSRF, type Stack, startStack, tokensOf } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

describe("bearer tokens", () => {
  test("introspection: many requests within 60 s make one provider call; client and app are known", async () => {
    const { at } = await tokensOf(stack, "server-bob");
    const before = stack.idp.calls.introspect ?? 0;
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${at}` } }),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        userId: "server-bob",
        clientId: CLIENT_ID,
        appId: "test",
        via: "bearer",
      });
    }
    for (let i = 0; i < 10; i++)
      expect((await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${at}` } })).status).toBe(
        200,
      );
    expect((stack.idp.calls.introspect ?? 0) - before).toBe(1);
  });

  test("an invalid token is 401 and the refusal is cached too; POST needs no CSRF header with a bearer", async () => {
    const before = stack.idp.calls.introspect ?? 0;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${stack.url}/v1/me`, {
        headers: { authorization: "Bearer not-a-real-token" },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "unauthenticated" });
    }
    expect((stack.idp.calls.introspect ?? 0) - before).toBe(1);
  });

  test("without an admin key the userinfo fallback proves the user but not the client", async () => {
    const own = await startStack({ adminApiKey: null });
    try {
      const { at } = await tokensOf(own, "info-user");
      const before = own.idp.calls.userinfo ?? 0;
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${own.url}/v1/me`, { headers: { authorization: `Bearer ${at}` } });
        expect(await res.json()).toEqual({
          userId: "info-user",
          clientId: null,
          appId: "test",
          via: "bearer",
        });
      }
      expect((own.idp.calls.userinfo ?? 0) - before).toBe(1);
      expect(own.idp.calls.introspect ?? 0).toBe(0);
    } finally {
      await own.stop();
    }
  });

  test("a provider that is down answers 502 idp_unavailable for an uncached token", async () => {
    const own = await startStack();
    try {
      await own.idp.stop();
      const res = await fetch(`${own.url}/v1/me`, { headers: { authorization: "Bearer some-token" } });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: "idp_unavailable" });
    } finally {
      await own.stop();
    }
  });
});

describe("Kratos flow proxy", () => {
  const flowUrl = (type: string, id: string) => `${stack.url}/auth/kratos/flow?type=${type}&id=${id}`;

  async function createFlow(type: string) {
    const res = await fetch(`${stack.idp.kratosUrl}/self-service/${type}/browser`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(200);
    const flow = (await res.json()) as { id: string };
    const csrf = res.headers.getSetCookie()[0]!.split(";")[0]!;
    expect(csrf.startsWith(kratosCsrfCookieName(stack.idp.kratosUrl))).toBe(true);
    return { id: flow.id, csrf };
  }

  test("relays 200 with the browser's cookies, 403 without, 404 unknown, 410 expired", async () => {
    const { id, csrf } = await createFlow("login");
    const ok = await fetch(flowUrl("login", id), { headers: { cookie: `other=1; ${csrf}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id, type: "browser" });

    const forbidden = await fetch(flowUrl("login", id));
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { id: "security_csrf_violation", code: 403 } });

    const missing = await fetch(flowUrl("registration", crypto.randomUUID()), { headers: { cookie: csrf } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404 } });

    stack.idp.expireKratosFlow(id);
    const gone = await fetch(flowUrl("login", id), { headers: { cookie: csrf } });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ error: { id: "self_service_flow_expired", code: 410 } });
  });

  test("error flows need no cookie; bad type or id never reach Kratos", async () => {
    const stub = await fetch(`${stack.url}/auth/kratos/flow?type=error&id=stub:500`);
    expect(stub.status).toBe(400); // ':' is outside the id alphabet
    const unknownError = await fetch(flowUrl("error", "abc"));
    expect(unknownError.status).toBe(404);
    const before = stack.idp.calls["kratos:flow"] ?? 0;
    for (const url of [
      flowUrl("logout", "abc"),
      flowUrl("login", "a%20b"),
      flowUrl("login", "x".repeat(65)),
    ]) {
      const res = await fetch(url);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request" });
    }
    expect((stack.idp.calls["kratos:flow"] ?? 0) - before).toBe(0);
  });

  test("Kratos unreachable is 502 idp_unavailable", async () => {
    const own = await startStack();
    try {
      await own.idp.stop();
      const res = await fetch(`${own.url}/auth/kratos/flow?type=login&id=abc`);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: "idp_unavailable" });
    } finally {
      await own.stop();
    }
  });
});

describe("no token ever leaks", () => {
  test("no response body, no Set-Cookie value and no log line contains a token", async () => {
    const bodies: string[] = [];
    const cookies: string[] = [];
    const record = async (res: Response) => {
      bodies.push(await res.clone().text());
      cookies.push(...res.headers.getSetCookie());
      return res;
    };
    const { browser, at, rt } = await tokensOf(stack, "leakcheck");
    const cookie = browser.cookieHeader(stack.url);
    await record(await fetch(`${stack.url}/auth/session`, { headers: { cookie } }));
    await record(await fetch(`${stack.url}/v1/me`, { headers: { cookie } }));
    await record(await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${at}` } }));
    const refreshed = await record(
      await fetch(`${stack.url}/auth/refresh`, { method: "POST", headers: { ...CSRF, cookie }, body: "{}" }),
    );
    const newCookie = refreshed.headers.getSetCookie()[0]!.split(";")[0]!;
    const fresh = await stack.running.gateway.sessions.resolve(newCookie);
    await record(
      await fetch(`${stack.url}/auth/refresh`, { method: "POST", headers: { ...CSRF, cookie }, body: "{}" }),
    );
    await record(
      await fetch(`${stack.url}/auth/logout`, {
        method: "POST",
        headers: { ...CSRF, cookie: newCookie },
        body: "{}",
      }),
    );
    await record(await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${rt}` } }));
    const secrets = [at, rt, fresh!.cookie.at, fresh!.cookie.rt!];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      for (const text of [...bodies, ...cookies, ...stack.logs]) expect(text.includes(secret)).toBe(false);
    }
    // The sealed cookie values themselves are credentials too: never in a log line.
    const cookieValues = [...cookie.split("; "), newCookie].map((pair) => pair.slice(pair.indexOf("=") + 1));
    for (const value of cookieValues) {
      expect(value.length).toBeGreaterThan(20);
      for (const line of stack.logs) expect(line.includes(value)).toBe(false);
    }
    // One access-log line per request, naming the credential kind and the client, never the credential.
    const access = stack.logs.map((line) => JSON.parse(line)).filter((line) => line.message === "request");
    expect(access).toContainEqual(
      expect.objectContaining({
        method: "GET",
        route: "/v1/me",
        status: 200,
        credential: "cookie",
        clientId: CLIENT_ID,
      }),
    );
    expect(access).toContainEqual(
      expect.objectContaining({
        method: "GET",
        route: "/v1/me",
        status: 200,
        credential: "bearer",
        clientId: CLIENT_ID,
      }),
    );
    expect(access).toContainEqual(
      expect.objectContaining({ method: "POST", route: "/auth/refresh", status: 200, credential: "cookie" }),
    );
    for (const line of access) {
      expect(Object.keys(line).sort()).toEqual(
        [
          "level",
          "message",
          "requestId",
          "method",
          "route",
          "status",
          "durationMs",
          "credential",
          "clientId",
        ].sort(),
      );
    }
  });
});
