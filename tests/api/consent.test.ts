/** Consent handling over real sockets: skip, the welcome credit, subject and scope checks, used challenges. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import { sql } from "../helpers/db.ts";
import {
  CLIENT_ID,
  CSRF,
  codeFrom,
  openConsent,
  pkce,
  reachConsent,
  SECRET_CLIENT_ID,
  type Stack,
  signIn,
  startStack,
} from "../helpers/stack.ts";

let stack: Stack;
const joined: Array<[string, string]> = [];
let failJoin = false;
beforeAll(async () => {
  stack = await startStack({
    consentHooks: {
      joinAppResource(subject, clientId) {
        joined.push([subject, clientId]);
        if (failJoin) throw new Error("resources module exploded");
      },
    },
  });
}, 60_000);
afterAll(() => stack.stop());

const welcomeRows = async (userId: string) =>
  (
    (await sql(stack.running.gateway.storage).get(
      "select count(*) as n from credits where user_id = ? and kind = 'welcome'",
      userId,
    )) as { n: number }
  ).n;
/** Accepts from `browser`, which must have loaded the consent request (it holds the consent nonce). */
const accept = (browser: Browser, challenge: string, subject: string, extra: Record<string, unknown> = {}) =>
  browser.fetch(`${stack.url}/auth/consent/accept`, {
    method: "POST",
    headers: CSRF,
    body: JSON.stringify({ challenge, subject, grant_scope: ["openid", "offline_access"], ...extra }),
  });
/** Walks to the consent page and loads the request in that browser, as the consent page does. */
async function atConsent(username: string, browser = new Browser()) {
  const { challenge } = await reachConsent(stack, browser, username, await pkce());
  const opened = await openConsent(stack, browser, challenge);
  expect(opened.status).toBe(200);
  return { browser, challenge, details: (await opened.json()) as Record<string, unknown> };
}

describe("consent", () => {
  test("welcomed is true on the first accept and false on the next; the credit is one row of 5 USD", async () => {
    const first = await atConsent("wendy");
    const a = await accept(first.browser, first.challenge, "wendy");
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual({
      redirect_to: expect.stringContaining(stack.idp.issuer),
      welcomed: true,
    });
    const row = (await sql(stack.running.gateway.storage).get(
      "select amount_micros from credits where user_id = 'wendy'",
    )) as { amount_micros: number };
    expect(row.amount_micros).toBe(5_000_000);
    expect(joined).toContainEqual(["wendy", CLIENT_ID]);

    const second = await atConsent("wendy");
    expect(second.details).toMatchObject({ subject: "wendy", is_new_user: false, client_name: "Test Web" });
    const b = await accept(second.browser, second.challenge, "wendy");
    expect(await b.json()).toMatchObject({ welcomed: false });
    expect(await welcomeRows("wendy")).toBe(1);
  });

  test("subject mismatch is 403 and nothing is granted", async () => {
    const { browser, challenge } = await atConsent("mallory");
    const res = await accept(browser, challenge, "someone-else");
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "subject_mismatch" });
    expect(await welcomeRows("mallory")).toBe(0);
    expect(await welcomeRows("someone-else")).toBe(0);
  });

  test("scopes that were not requested are 400 invalid_scope", async () => {
    const { browser, challenge } = await atConsent("scoper");
    const res = await accept(browser, challenge, "scoper", { grant_scope: ["openid", "admin"] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_scope" });
    expect(await welcomeRows("scoper")).toBe(0);
  });

  test("a used challenge answers 200 {redirect_to}; an unknown one 404 consent_not_found", async () => {
    const { browser, challenge } = await atConsent("usedchallenge");
    expect((await accept(browser, challenge, "usedchallenge")).status).toBe(200);
    const again = await fetch(`${stack.url}/auth/consent-request?challenge=${challenge}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ redirect_to: expect.any(String) });
    // A second click in the deciding browser gets the same answer (the binding outlives the decision).
    const twice = await accept(browser, challenge, "usedchallenge");
    expect(twice.status).toBe(200);
    expect(await twice.json()).toEqual({ redirect_to: expect.any(String), welcomed: false });
    const unknown = await fetch(`${stack.url}/auth/consent-request?challenge=does-not-exist`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "consent_not_found" });
    // Accepting a challenge this browser never loaded is refused before the provider is asked.
    const unknownAccept = await accept(browser, "does-not-exist", "x");
    expect(unknownAccept.status).toBe(403);
    expect(await unknownAccept.json()).toMatchObject({ code: "consent_not_bound" });
  });

  test("reject sends the app access_denied", async () => {
    const { browser, challenge } = await atConsent("denier");
    const res = await browser.fetch(`${stack.url}/auth/consent/reject`, {
      method: "POST",
      headers: CSRF,
      body: JSON.stringify({ challenge }),
    });
    expect(res.status).toBe(200);
    const { redirect_to } = (await res.json()) as { redirect_to: string };
    const callback = await codeFrom(stack, browser, redirect_to);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("code")).toBeNull();
    expect(await welcomeRows("denier")).toBe(0);
  });

  test("skip auto-accepts, still grants the welcome credit once, and a failing join never blocks consent", async () => {
    const browser = new Browser();
    await signIn(stack, "skipper", browser); // accepted with remember: true
    await sql(stack.running.gateway.storage).run("delete from credits where user_id = 'skipper'"); // a user from before credits
    failJoin = true;
    try {
      const p = await pkce();
      const { challenge } = await reachConsent(stack, browser, "skipper", p);
      const res = await fetch(`${stack.url}/auth/consent-request?challenge=${challenge}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { skip: boolean; redirect_to: string };
      expect(body).toEqual({ skip: true, redirect_to: expect.any(String) });
      expect(await welcomeRows("skipper")).toBe(1);
      const callback = await codeFrom(stack, browser, body.redirect_to);
      expect(callback.searchParams.get("code")).toBeTruthy();

      // The consent page itself also auto-accepts a skip, with a redirect and no second credit.
      const next = await reachConsent(stack, browser, "skipper", await pkce());
      const page = await fetch(`${stack.url}/auth/consent?consent_challenge=${next.challenge}`, {
        redirect: "manual",
      });
      expect(page.status).toBe(302);
      expect(await welcomeRows("skipper")).toBe(1);
    } finally {
      failJoin = false;
    }
    expect(stack.logs.some((line) => line.includes("app join after consent failed"))).toBe(true);
  });

  test("the consent page shows the app and scopes, escaped, with CSP and no framing", async () => {
    const { challenge } = await reachConsent(stack, new Browser(), "pageviewer", await pkce());
    const res = await fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain("Test Web");
    expect(html).toContain("<code>offline_access</code>");
    expect(html).toContain("pageviewer");
    const expired = await fetch(`${stack.url}/auth/consent?consent_challenge=nope`);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain("expired");
  });

  test("the consent page names the app by its client_name and says what each standard scope allows", async () => {
    const browser = new Browser();
    const p = { ...(await pkce()), scope: "openid offline_access profile email" };
    const { challenge } = await reachConsent(stack, browser, "scopereader", p);
    const html = await (
      await browser.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`)
    ).text();
    expect(html).toContain("<h1>Allow <strong>Test Web</strong> to use your account?</h1>");
    for (const words of [
      "Know who you are",
      "Stay signed in",
      "See your basic profile",
      "See your email address",
    ])
      expect(html).toContain(`<strong>${words}</strong>`);
    expect(html).toContain("<code>profile</code>");
  });

  test("a client without a name is named by its client id", async () => {
    const browser = new Browser();
    const { challenge } = await reachConsent(stack, browser, "namelessuser", await pkce(), SECRET_CLIENT_ID);
    const res = await browser.fetch(`${stack.url}/auth/consent?consent_challenge=${challenge}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(
      `<h1>Allow <strong>${SECRET_CLIENT_ID}</strong> to use your account?</h1>`,
    );
    const json = await openConsent(stack, browser, challenge);
    expect(await json.json()).toMatchObject({ client_id: SECRET_CLIENT_ID, client_name: SECRET_CLIENT_ID });
  });
});
