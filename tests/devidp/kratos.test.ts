// The dev IdP's Kratos emulation: browser flow creation with a CSRF cookie, and the
// public flow fetch with Kratos' statuses (200 / 403 / 404 / 410) and error shapes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DevIdp, kratosCsrfCookieName, startDevIdp } from "../../src/devidp/index.ts";
import { Browser } from "../helpers/browser.ts";

let idp: DevIdp;

beforeAll(async () => {
  idp = await startDevIdp({
    clients: [{ clientId: "spa", redirectUris: ["http://127.0.0.1:9/callback"] }],
    consentUrl: "http://127.0.0.1:9/auth/consent",
    quiet: true,
  });
}, 60_000);

afterAll(() => idp.stop());

const CSRF_NAME = () => `csrf_token_${new Bun.CryptoHasher("sha256").update(idp.kratosUrl).digest("hex")}`;

async function createFlow(browser: Browser, type: string, query = "") {
  const response = await browser.fetch(`${idp.kratosUrl}/self-service/${type}/browser${query}`);
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "");
  expect(location.searchParams.get("flow")).toBeTruthy();
  return location.searchParams.get("flow") ?? "";
}

function fetchFlow(type: string, id: string, cookie?: string) {
  return fetch(`${idp.kratosUrl}/self-service/${type}/flows?id=${id}`, {
    headers: { accept: "application/json", ...(cookie === undefined ? {} : { cookie }) },
  });
}

describe("dev IdP as Kratos", () => {
  test("browser flow creation sets csrf_token_<sha256(public URL)> and redirects with ?flow=", async () => {
    const browser = new Browser();
    const response = await browser.fetch(
      `${idp.kratosUrl}/self-service/login/browser?return_to=http://app/x`,
    );
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.pathname).toBe("/ui/login");
    expect(kratosCsrfCookieName(idp.kratosUrl)).toBe(CSRF_NAME());
    const setCookie = response.headers.getSetCookie().join("\n");
    expect(setCookie).toContain(`${CSRF_NAME()}=`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("Path=/");
    expect(browser.cookie(idp.kratosUrl, CSRF_NAME())).toBeTruthy();

    const asJson = await browser.fetch(`${idp.kratosUrl}/self-service/registration/browser`, {
      headers: { accept: "application/json" },
    });
    expect(asJson.status).toBe(200);
    const flow = (await asJson.json()) as Record<string, any>;
    expect(flow.type).toBe("browser");
    expect(typeof flow.id).toBe("string");
    // the same browser keeps one CSRF token across flows, like Kratos
    expect(flow.ui.nodes[0].attributes).toMatchObject({
      name: "csrf_token",
      value: browser.cookie(idp.kratosUrl, CSRF_NAME()),
    });
  });

  test("flow fetch: 200 with the cookie, 403 without or with a wrong one, 404 unknown", async () => {
    const browser = new Browser();
    const id = await createFlow(
      browser,
      "login",
      "?return_to=http%3A%2F%2F127.0.0.1%3A9%2Fhome&login_challenge=abc",
    );
    idp.resetCalls();

    const ok = await fetchFlow("login", id, browser.cookieHeader(idp.kratosUrl));
    expect(ok.status).toBe(200);
    const flow = (await ok.json()) as Record<string, any>;
    expect(flow).toMatchObject({
      id,
      type: "browser",
      return_to: "http://127.0.0.1:9/home",
      oauth2_login_challenge: "abc",
      refresh: false,
      requested_aal: "aal1",
      ui: { action: `${idp.kratosUrl}/self-service/login?flow=${id}`, method: "POST" },
    });
    expect(Date.parse(flow.expires_at)).toBeGreaterThan(Date.now());
    expect(Date.parse(flow.issued_at)).toBeLessThanOrEqual(Date.now());
    expect(flow.request_url).toStartWith(`${idp.kratosUrl}/self-service/login/browser`);
    expect(flow.ui.nodes.map((n: any) => n.attributes.name)).toEqual([
      "csrf_token",
      "identifier",
      "password",
      "method",
    ]);

    for (const cookie of [undefined, "", `${CSRF_NAME()}=wrong`, "other=1"]) {
      const denied = await fetchFlow("login", id, cookie);
      expect(denied.status).toBe(403);
      expect(await denied.json()).toMatchObject({
        error: { id: "security_csrf_violation", code: 403, status: "Forbidden" },
      });
    }

    const unknown = await fetchFlow("login", crypto.randomUUID(), browser.cookieHeader(idp.kratosUrl));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 404, status: "Not Found" } });
    // a login flow id is not a registration flow
    expect((await fetchFlow("registration", id, browser.cookieHeader(idp.kratosUrl))).status).toBe(404);
    expect(idp.calls["kratos:flow"]).toBe(7);
  });

  test("every flow type can be fetched", async () => {
    const browser = new Browser();
    for (const type of ["login", "registration", "recovery", "settings", "verification"]) {
      const id = await createFlow(browser, type);
      const response = await fetchFlow(type, id, browser.cookieHeader(idp.kratosUrl));
      expect(response.status).toBe(200);
      expect(((await response.json()) as { id: string }).id).toBe(id);
    }
  });

  test("expireKratosFlow → 410 self_service_flow_expired with redirect_to and return_to", async () => {
    const browser = new Browser();
    const id = await createFlow(browser, "registration", "?return_to=http%3A%2F%2F127.0.0.1%3A9%2Fafter");
    expect((await fetchFlow("registration", id, browser.cookieHeader(idp.kratosUrl))).status).toBe(200);
    idp.expireKratosFlow(id);
    const gone = await fetchFlow("registration", id, browser.cookieHeader(idp.kratosUrl));
    expect(gone.status).toBe(410);
    const body = (await gone.json()) as Record<string, any>;
    expect(body.error).toMatchObject({ id: "self_service_flow_expired", code: 410, status: "Gone" });
    expect(body.error.details.return_to).toBe("http://127.0.0.1:9/after");
    const restart = new URL(body.error.details.redirect_to);
    expect(restart.pathname).toBe("/self-service/registration/browser");
    expect(restart.searchParams.get("return_to")).toBe("http://127.0.0.1:9/after");
    idp.expireKratosFlow("no-such-flow"); // harmless
  });

  test("self-service errors: stub:500 without a cookie, 404 for unknown ids", async () => {
    const stub = await fetch(`${idp.kratosUrl}/self-service/errors?id=stub:500`);
    expect(stub.status).toBe(200);
    expect(await stub.json()).toMatchObject({
      id: "stub:500",
      error: { code: 500, status: "Internal Server Error", message: "This is a stub error." },
    });
    const unknown = await fetch(`${idp.kratosUrl}/self-service/errors?id=${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 404, status: "Not Found" } });
  });
});
