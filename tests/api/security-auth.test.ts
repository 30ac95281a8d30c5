/**
 * The /auth hardening, over real sockets against the development provider: a refresh token reused
 * after its grace is theft; refresh checks the client before the provider; authorize forwards only
 * what it checked; the CSRF guard cannot be dodged with a malformed Host; ID tokens carry our nonce;
 * answers are never cached and the landing page cannot be framed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  authorizeUrl,
  CLIENT_ID,
  CSRF,
  consentFlow,
  introspect,
  pkce,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

const GRACE_MS = 400;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ rotationGraceMs: GRACE_MS });
}, 60_000);
afterAll(() => stack.stop());

async function login(user: string) {
  const { browser, token } = await signIn(stack, user, new Browser());
  expect(token.status).toBe(200);
  const cookie = browser.cookieHeader(stack.url);
  const resolved = (await stack.running.gateway.sessions.resolve(cookie))!;
  return { browser, cookie, row: resolved.row, tokens: resolved.cookie };
}

const refresh = (cookie: string, body: unknown = {}) =>
  fetch(`${stack.url}/auth/refresh`, {
    method: "POST",
    headers: { ...CSRF, cookie },
    body: JSON.stringify(body),
  });
const events = async (type: string) =>
  (await sql(stack.running.gateway.storage).all("SELECT * FROM events WHERE type = ?", type)) as Array<{
    data: string;
  }>;
describe("a stolen cookie is treated as theft", () => {
  test("a refresh token presented after its grace ends the session, revokes the grant and emits session.reuse_detected", async () => {
    const victim = await login("theft-victim");
    // The thief copied the cookie and refreshes first.
    const thief = await refresh(victim.cookie);
    expect(thief.status).toBe(200);
    const thiefCookie = thief.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const thiefTokens = (await stack.running.gateway.sessions.resolve(thiefCookie))!.cookie;
    expect(thiefTokens.rt).not.toBe(victim.tokens.rt);
    await Bun.sleep(GRACE_MS + 100);
    // The victim's tab refreshes with the token the thief already rotated away: theft.
    const revokes = stack.idp.calls.revoke ?? 0;
    const reuse = await refresh(victim.cookie);
    expect(reuse.status).toBe(401);
    expect(await reuse.json()).toMatchObject({ code: "unauthenticated" });
    expect(reuse.headers.getSetCookie().some((c) => /^sg_session=; Max-Age=0/.test(c))).toBe(true);
    const row = (await stack.running.gateway.store.fresh(victim.row.id))!;
    expect(row.endedAt).not.toBeNull();
    expect(row.endReason).toBe("refresh_reuse");
    const detected = (await events("session.reuse_detected")).map((e) => JSON.parse(e.data));
    expect(detected).toContainEqual({
      sessionId: victim.row.id,
      clientId: CLIENT_ID,
      reason: "refresh_reuse",
    });
    // The grant is revoked at the provider: the thief's refresh token is dead, and so is the session.
    expect(stack.idp.calls.revoke).toBe(revokes + 1);
    expect((await introspect(stack, thiefTokens.rt!)).active).toBe(false);
    const thiefSession = await fetch(`${stack.url}/auth/session`, { headers: { cookie: thiefCookie } });
    expect(await thiefSession.json()).toEqual({ authenticated: false, reason: "reused" });
    expect((await refresh(thiefCookie)).status).toBe(401);
  }, 60_000);

  test("inside the grace the previous token still gets the current session (two tabs), nothing ends", async () => {
    const user = await login("theft-tabs");
    expect((await refresh(user.cookie)).status).toBe(200);
    const second = await refresh(user.cookie);
    expect(second.status).toBe(200);
    expect((await stack.running.gateway.store.fresh(user.row.id))!.endedAt).toBeNull();
  }, 60_000);
});

describe("refresh checks the client first", () => {
  test("POST /auth/refresh with another client_id is 400 and changes nothing, at the provider included", async () => {
    const user = await login("refresh-client");
    const before = (await stack.running.gateway.store.fresh(user.row.id))!;
    const calls = stack.idp.calls["token:refresh_token"] ?? 0;
    const res = await refresh(user.cookie, { client_id: SECRET_CLIENT_ID });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(stack.idp.calls["token:refresh_token"] ?? 0).toBe(calls);
    expect(await stack.running.gateway.store.fresh(user.row.id)).toEqual(before);
    // The session's own client still refreshes (the token was never spent).
    const ok = await refresh(user.cookie, { client_id: CLIENT_ID });
    expect(ok.status).toBe(200);
  }, 60_000);
});

describe("/auth/authorize forwards only what it checked", () => {
  const base = async () => {
    const p = await pkce();
    return new URL(authorizeUrl(stack, p)).searchParams;
  };
  const authorize = (params: URLSearchParams | string) =>
    fetch(`${stack.url}/auth/authorize?${params}`, { redirect: "manual" });

  test("a repeated client_id or redirect_uri is 400 invalid_request (the provider would read the first)", async () => {
    for (const name of ["client_id", "redirect_uri", "state"]) {
      const params = await base();
      params.append(name, name === "redirect_uri" ? "https://evil.example/cb" : "evil");
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request" });
    }
    // Repeated with the evil value first: refused too.
    const params = await base();
    const raw = `client_id=evil&${params}`;
    expect((await authorize(raw)).status).toBe(400);
  });

  test("a missing client_id or redirect_uri is 400 with an apps file in force", async () => {
    for (const name of ["client_id", "redirect_uri"]) {
      const params = await base();
      params.delete(name);
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request" });
    }
  });

  test("PKCE is pinned: no challenge, or a plain one, is 400", async () => {
    const none = await base();
    none.delete("code_challenge");
    expect((await authorize(none)).status).toBe(400);
    const plain = await base();
    plain.set("code_challenge_method", "plain");
    expect((await authorize(plain)).status).toBe(400);
  });

  test("the query forwarded is rebuilt from the checked values", async () => {
    const params = await base();
    const res = await authorize(params);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.getAll("client_id")).toEqual([CLIENT_ID]);
    expect(location.searchParams.getAll("redirect_uri")).toEqual([stack.redirectUri]);
    expect(location.searchParams.get("code_challenge")).toBe(params.get("code_challenge"));
  });

  test("a request object, response_mode or any parameter off the allow-list is 400 and never reaches the provider", async () => {
    const evil = new URLSearchParams({ redirect_uri: "https://evil.example/cb" }).toString();
    const refused: Array<[string, string, RegExp]> = [
      ["request", `eyJhbGciOiJub25lIn0.${btoa(JSON.stringify({ redirect_uri: evil }))}.`, /request object/],
      ["request_uri", "https://evil.example/request.jwt", /request object/],
      ["response_mode", "form_post", /query/],
      ["registration", "{}", /forwards/],
      ["claims", '{"id_token":{"email":null}}', /forwards/],
      ["foo", "bar", /forwards/],
    ];
    for (const [name, value, why] of refused) {
      const params = await base();
      params.set(name, value);
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code).toBe("invalid_request");
      expect(body.error).toContain(name);
      expect(body.error).toMatch(why);
    }
  });

  test("the OpenID parameters on the allow-list are forwarded as given", async () => {
    const extra = {
      prompt: "login",
      max_age: "300",
      login_hint: "alice",
      ui_locales: "fr",
      acr_values: "urn:acr:pwd",
      display: "page",
      audience: "https://api.example",
    };
    const params = await base();
    for (const [name, value] of Object.entries(extra)) params.set(name, value);
    const res = await authorize(params);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    for (const [name, value] of Object.entries(extra)) expect(location.searchParams.get(name)).toBe(value);
  });
});

describe("the CSRF guard is where the route is", () => {
  /** One raw HTTP/1.1 request (a malformed Host can only be sent this way). */
  function raw(request: string): Promise<string> {
    const { port } = new URL(stack.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write(request));
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      socket.on("end", () => resolve(answer));
      socket.on("error", reject);
      setTimeout(() => {
        socket.destroy();
        resolve(answer);
      }, 2000);
    });
  }

  test("POST /auth/logout without the header is 403 whatever the Host header says; the session lives", async () => {
    const user = await login("csrf-host");
    for (const host of ["a/b", "", "127.0.0.1/x/y", "[::1"]) {
      const answer = await raw(
        `POST /auth/logout HTTP/1.1\r\nHost: ${host}\r\nCookie: ${user.cookie}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      expect([host, answer.split("\r\n")[0]]).toEqual([host, "HTTP/1.1 403 Forbidden"]);
      expect(answer).toContain('"code":"csrf_required"');
      expect((await stack.running.gateway.store.fresh(user.row.id))!.endedAt).toBeNull();
    }
    const session = await fetch(`${stack.url}/auth/session`, { headers: { cookie: user.cookie } });
    expect(await session.json()).toEqual({ authenticated: true, user_id: "csrf-host" });
  }, 60_000);
});

describe("ID tokens carry the nonce the sign-in sent", () => {
  async function codeWithNonce(user: string) {
    const flow = await consentFlow(stack, user);
    const { redirect_to } = (await (await flow.accept()).json()) as { redirect_to: string };
    let callback: Promise<Response> | undefined;
    const exchange = (nonce: string | undefined) => {
      callback ??= flow.exchange(redirect_to, { nonce: nonce === undefined ? null : nonce });
      return callback;
    };
    return { browser: flow.browser, nonce: flow.nonce, exchange };
  }
  const liveSessionsOf = async (user: string) =>
    (await sql(stack.running.gateway.storage).get(
      "SELECT count(*) AS n FROM sessions WHERE user_id = ? AND ended_at IS NULL",
      user,
    )) as { n: number };

  test("another nonce at /auth/token is 400 invalid_nonce and starts no session", async () => {
    const { browser, exchange } = await codeWithNonce("nonce-mismatch");
    const res = await exchange("not-the-nonce-sent");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_nonce" });
    expect(browser.cookieHeader(stack.url)).not.toContain("sg_session");
    expect((await liveSessionsOf("nonce-mismatch")).n).toBe(0);
  }, 60_000);

  test("a nonce sent at authorize but missing at /auth/token is 400 invalid_nonce", async () => {
    const { exchange } = await codeWithNonce("nonce-missing");
    const res = await exchange(undefined);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_nonce" });
    expect((await liveSessionsOf("nonce-missing")).n).toBe(0);
  }, 60_000);

  test("the matching nonce signs in", async () => {
    const { exchange, nonce } = await codeWithNonce("nonce-ok");
    expect((await exchange(nonce)).status).toBe(200);
    expect((await liveSessionsOf("nonce-ok")).n).toBe(1);
  }, 60_000);
});

describe("headers", () => {
  test("authenticated JSON and errors carry Cache-Control: no-store and nosniff", async () => {
    const user = await login("headers-user");
    for (const [path, headers] of [
      ["/auth/session", { cookie: user.cookie }],
      ["/v1/me", { cookie: user.cookie }],
      ["/v1/resources", { cookie: user.cookie }],
      ["/v1/resources", {}],
    ] as Array<[string, Record<string, string>]>) {
      const res = await fetch(`${stack.url}${path}`, { headers });
      expect([path, res.headers.get("cache-control")]).toEqual([path, "no-store"]);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  }, 60_000);

  test("the landing page cannot be framed", async () => {
    const res = await fetch(`${stack.url}/`);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
