/**
 * Every rule of a back-channel logout token refused, one test each, over a real socket: hand-made
 * tokens, correctly signed (HS256 with the confidential client's secret, which the gateway accepts as
 * it accepts that client's ID tokens) but for the one claim under test. Each answers 400 with the
 * specification's body (`error: invalid_request`, an `error_description`, and the gateway's `code`),
 * `Cache-Control: no-store`, and changes nothing: the subject's live session stays, no event, no `jti`
 * remembered. A valid token answers 200 without any CSRF header or cookie, and its replay is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type JWTPayload, SignJWT } from "jose";
import { Browser } from "../../src/devidp/browser.ts";
import { BACKCHANNEL_LOGOUT_EVENT } from "../../src/server/auth/logout-token.ts";
import { sql } from "../helpers/db.ts";
import { CLIENT_SECRET, SECRET_CLIENT_ID, type Stack, signIn, startStack } from "../helpers/stack.ts";

const USER = "bcl-refused";
let stack: Stack;
let sessionId: string;
const db = () => sql(stack.running.gateway.storage);

const now = () => Math.floor(Date.now() / 1000);
const claims = (): JWTPayload => ({
  iss: stack.idp.issuer,
  aud: SECRET_CLIENT_ID,
  sub: USER,
  iat: now(),
  exp: now() + 120,
  jti: crypto.randomUUID(),
  events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
});

function sign(payload: JWTPayload, secret = CLIENT_SECRET): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));
}

const post = (body: string, contentType = "application/x-www-form-urlencoded") =>
  fetch(`${stack.url}/auth/backchannel-logout`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
const form = (token: string) => new URLSearchParams({ logout_token: token }).toString();

const snapshot = async () => ({
  sessions: await db().all("SELECT id, ended_at, end_reason FROM sessions ORDER BY id"),
  events: await db().count("SELECT count(*) FROM events"),
  jtis: await db().count("SELECT count(*) FROM logout_tokens"),
});

async function expectRefused(answer: Promise<Response>, description: RegExp) {
  const before = await snapshot();
  const res = await answer;
  expect(res.status).toBe(400);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as Record<string, string>;
  expect(body).toEqual({
    error: "invalid_request",
    error_description: expect.any(String),
    code: "invalid_request",
  });
  expect(body.error_description).toMatch(description);
  expect(await snapshot()).toEqual(before);
  expect((await db().get("SELECT ended_at FROM sessions WHERE id = ?", sessionId))?.ended_at).toBeNull();
}

beforeAll(async () => {
  stack = await startStack();
  const browser = new Browser();
  expect((await signIn(stack, USER, browser, SECRET_CLIENT_ID)).token.status).toBe(200);
  const resolved = await stack.running.gateway.sessions.resolve(browser.cookieHeader(stack.url));
  sessionId = resolved!.row.id;
});
afterAll(() => stack?.stop());

describe("POST /auth/backchannel-logout refuses", () => {
  test("a bad signature", async () => {
    await expectRefused(
      post(form(await sign(claims(), "not-the-client-secret-0123456789"))),
      /does not verify/,
    );
  });
  test("another issuer", async () => {
    await expectRefused(post(form(await sign({ ...claims(), iss: "https://elsewhere.example" }))), /iss/);
  });
  test("an audience that is not a client of the apps file", async () => {
    await expectRefused(post(form(await sign({ ...claims(), aud: "nobody" }))), /audience/);
  });
  test("an iat far in the future", async () => {
    await expectRefused(post(form(await sign({ ...claims(), iat: now() + 600 }))), /iat is in the future/);
  });
  test("an iat far in the past", async () => {
    await expectRefused(post(form(await sign({ ...claims(), iat: now() - 3600 }))), /iat is too old/);
  });
  test("no events claim", async () => {
    const { events: _, ...rest } = claims();
    await expectRefused(post(form(await sign(rest))), /events/);
  });
  test("an events claim without the back-channel logout event", async () => {
    const events = { "http://schemas.openid.net/event/other": {} };
    await expectRefused(post(form(await sign({ ...claims(), events }))), /events/);
  });
  test("the logout event as a string, not an object member", async () => {
    const events = { [BACKCHANNEL_LOGOUT_EVENT]: "yes" };
    await expectRefused(post(form(await sign({ ...claims(), events }))), /events/);
  });
  test("a nonce", async () => {
    await expectRefused(post(form(await sign({ ...claims(), nonce: "n-0" }))), /nonce/);
  });
  test("neither sid nor sub", async () => {
    const { sub: _, ...rest } = claims();
    await expectRefused(post(form(await sign(rest))), /neither sid nor sub/);
  });
  test("no jti", async () => {
    const { jti: _, ...rest } = claims();
    await expectRefused(post(form(await sign(rest))), /jti/);
  });
  test("no exp", async () => {
    const { exp: _, ...rest } = claims();
    await expectRefused(post(form(await sign(rest))), /exp/);
  });
  test("a token that is not a JWT", async () => {
    await expectRefused(post(form("not-a-jwt")), /not a JWT/);
  });
  test("a form without logout_token", async () => {
    await expectRefused(post("other=1"), /logout_token/);
  });
  test("two logout_token fields", async () => {
    const token = await sign(claims());
    await expectRefused(post(`${form(token)}&${form(token)}`), /logout_token/);
  });
  test("a JSON body", async () => {
    const token = await sign(claims());
    await expectRefused(post(JSON.stringify({ logout_token: token }), "application/json"), /form-urlencoded/);
  });
  test("a body over 16 KiB", async () => {
    const token = await sign(claims());
    await expectRefused(post(`${form(token)}&pad=${"x".repeat(20 * 1024)}`), /16 KiB/);
  });
});

describe("POST /auth/backchannel-logout accepts", () => {
  test("a valid token without cookie or CSRF header, and refuses its replay", async () => {
    const token = await sign(claims());
    const res = await post(form(token));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe("");
    const row = await db().get("SELECT end_reason FROM sessions WHERE id = ?", sessionId);
    expect(row?.end_reason).toBe("provider_logout");
    expect(await db().count("SELECT count(*) FROM logout_tokens")).toBe(1);

    const before = await snapshot();
    const replay = await post(form(token));
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error_description: string }).error_description).toMatch(/replayed/);
    expect(await snapshot()).toEqual(before);
  });

  test("one token posted five times at once: one 200, four replays refused", async () => {
    const token = await sign(claims());
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(form(token))));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400, 400, 400]);
  });
});
