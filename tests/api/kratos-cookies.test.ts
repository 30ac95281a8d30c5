/**
 * The Kratos flow proxy keeps the gateway's own cookies to itself: the sealed session cookie (and its
 * chunks) and the consent nonce never reach Kratos, and a Set-Cookie from Kratos for one of those names
 * is never relayed (it could sign the browser out or plant a session). Kratos' own cookies still pass.
 * Kratos here is a tiny misbehaving server that echoes the Cookie it received.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import { CSRF, openConsent, pkce, reachConsent, type Stack, signIn, startStack } from "../helpers/stack.ts";

const received: Array<string | null> = [];
const HOSTILE = [
  "sg_session=planted; Path=/; HttpOnly",
  "sg_session_0=planted; Path=/",
  "sg_consent=planted; Path=/auth",
  "__Host-sg_session=planted; Path=/; Secure; HttpOnly",
  "__Host-sg_session_1=planted; Path=/; Secure",
  "__Secure-sg_consent=planted; Path=/auth; Secure",
  "=sg_session=planted; Path=/", // a nameless cookie a browser would send back as "sg_session=planted"
];
const KRATOS_OWN = ["ory_kratos_session=from-kratos; Path=/; HttpOnly", "csrf_token_abc=from-kratos; Path=/"];
const kratos = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const cookie = request.headers.get("cookie");
    received.push(cookie);
    const headers = new Headers({ "content-type": "application/json" });
    for (const value of [...HOSTILE, ...KRATOS_OWN]) headers.append("set-cookie", value);
    return new Response(JSON.stringify({ id: "flow-1", type: "browser", cookie }), { headers });
  },
});
const KRATOS_URL = `http://127.0.0.1:${kratos.port}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { KRATOS_PUBLIC_URL: KRATOS_URL } });
}, 60_000);
afterAll(async () => {
  await stack.stop();
  kratos.stop(true);
}, 30_000);

const names = (setCookies: string[]) => setCookies.map((c) => c.slice(0, c.indexOf("=")));

describe("the Kratos flow proxy and the gateway's cookies", () => {
  test("the sealed session cookie and the consent nonce never reach Kratos; Kratos cannot overwrite them", async () => {
    const { browser } = await signIn(stack, "kratos-user");
    const sealed = browser.cookie(stack.url, "sg_session")!;
    expect(sealed.length).toBeGreaterThan(100);
    // A consent nonce (Path=/auth) is in the jar too, and so are Kratos' own cookies.
    const { challenge } = await reachConsent(stack, new Browser(), "someone", await pkce());
    await openConsent(stack, browser, challenge);
    const nonce = browser.cookie(`${stack.url}/auth/kratos/flow`, "sg_consent")!;
    expect(nonce).toBeTruthy();
    browser.setCookie(stack.url, "csrf_token_abc=browser-csrf; Path=/");
    browser.setCookie(stack.url, "ory_kratos_session=browser-session; Path=/");
    browser.setCookie(stack.url, "sg_session_3=stale-chunk; Path=/");

    const before = received.length;
    const res = await browser.fetch(`${stack.url}/auth/kratos/flow?type=login&id=flow-1`);
    expect(res.status).toBe(200);
    expect(received.length).toBe(before + 1);
    const upstream = received.at(-1) ?? "";
    expect(upstream).not.toContain(sealed);
    expect(upstream).not.toContain(nonce);
    expect(upstream).not.toMatch(/(^|; )sg_(session|consent)/);
    expect(upstream.split("; ").sort()).toEqual([
      "csrf_token_abc=browser-csrf",
      "ory_kratos_session=browser-session",
    ]);
    expect(await res.json()).toEqual({ id: "flow-1", type: "browser", cookie: upstream });

    expect(names(res.headers.getSetCookie())).toEqual(["ory_kratos_session", "csrf_token_abc"]);
    expect(browser.cookie(stack.url, "sg_session")).toBe(sealed);
    const session = await browser.fetch(`${stack.url}/auth/session`);
    expect(await session.json()).toEqual({ authenticated: true, user_id: "kratos-user" });
    const row = (await sql(stack.running.gateway.storage).get(
      "SELECT count(*) AS n FROM sessions WHERE user_id = 'kratos-user' AND ended_at IS NULL",
    )) as { n: number };
    expect(row.n).toBe(1);
    // The session still works for a state-changing call.
    const refresh = await browser.fetch(`${stack.url}/auth/refresh`, {
      method: "POST",
      headers: CSRF,
      body: "{}",
    });
    expect(refresh.status).toBe(200);
  });

  test("with only gateway cookies, Kratos gets no Cookie header at all", async () => {
    const before = received.length;
    const res = await fetch(`${stack.url}/auth/kratos/flow?type=login&id=flow-1`, {
      headers: { cookie: "sg_session=abc; sg_session_0=def; sg_consent=ghi" },
    });
    expect(res.status).toBe(200);
    expect(received.slice(before)).toEqual([null]);
  });
});

describe("with secure cookies (__Host- session, __Secure- consent)", () => {
  test("the prefixed names are kept from Kratos and never set by it", async () => {
    const secure = await startStack({ env: { KRATOS_PUBLIC_URL: KRATOS_URL, COOKIE_SECURE: "true" } });
    try {
      const before = received.length;
      const res = await fetch(`${secure.url}/auth/kratos/flow?type=settings&id=flow-1`, {
        headers: {
          cookie:
            "__Host-sg_session=sealed-value; __Host-sg_session_0=chunk; __Secure-sg_consent=nonce; csrf_token_abc=x",
        },
      });
      expect(res.status).toBe(200);
      expect(received.slice(before)).toEqual(["csrf_token_abc=x"]);
      expect(names(res.headers.getSetCookie())).toEqual(["ory_kratos_session", "csrf_token_abc"]);
    } finally {
      await secure.stop();
    }
  });
});
