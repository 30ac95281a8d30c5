/**
 * The OpenAPI documents over real sockets: each listener serves its own at `/openapi.json` (the admin
 * one behind the admin token), and a whole sign-in through the development provider (authorize,
 * the consent page and its endpoints, the code exchange, refresh, sign-out, the Kratos proxy) answers
 * only what the public document describes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Browser } from "../helpers/browser.ts";
import {
  DocumentChecker,
  documentProblems,
  type Listener,
  type OpenApiDocument,
  Recorder,
} from "../helpers/openapi-check.ts";
import { CLIENT_ID, CSRF, codeFrom, pkce, reachConsent, type Stack, startStack } from "../helpers/stack.ts";

const ADMIN = { authorization: "Bearer test-admin-token" };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

/** A browser that keeps a copy of every answer of the gateway's two listeners. */
class RecordingBrowser extends Browser {
  constructor(readonly recorder: Recorder) {
    super();
  }

  override async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const response = await super.fetch(url, init);
    const origin = new URL(url).origin;
    const listener: Listener | undefined =
      origin === new URL(stack.url).origin
        ? "public"
        : origin === new URL(stack.adminUrl).origin
          ? "admin"
          : undefined;
    return listener ? this.recorder.keep(listener, init.method ?? "GET", url, response) : response;
  }
}

async function documentOf(url: string, headers: Record<string, string> = {}): Promise<OpenApiDocument> {
  const res = await fetch(`${url}/openapi.json`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  const doc = await res.json();
  expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
  expect(documentProblems(doc)).toEqual([]);
  return doc;
}

describe("/openapi.json on each listener", () => {
  test("the public listener's and the admin listener's, each its own routes", async () => {
    const publicDoc = await documentOf(stack.url);
    const adminDoc = await documentOf(stack.adminUrl, ADMIN);
    expect(Object.keys(publicDoc.paths)).toContain("/v1/resources/{id}");
    expect(Object.keys(publicDoc.paths).some((path) => path.startsWith("/admin"))).toBe(false);
    expect(Object.keys(adminDoc.paths)).toContain("/admin/v1/overview");
    expect(
      Object.keys(adminDoc.paths).some((path) => path.startsWith("/v1") || path.startsWith("/auth")),
    ).toBe(false);
    const refused = await fetch(`${stack.adminUrl}/openapi.json`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "unauthenticated" });
  });
});

describe("a real sign-in answers what the document describes", () => {
  test("authorize → consent page and endpoints → token → session, refresh, resources → logout", async () => {
    const recorder = new Recorder();
    const browser = new RecordingBrowser(recorder);
    const checkers = {
      public: new DocumentChecker(await documentOf(stack.url)),
      admin: new DocumentChecker(await documentOf(stack.adminUrl, ADMIN)),
    };
    const at = (path: string) => `${stack.url}${path}`;
    const post = (path: string, body?: unknown) =>
      browser.fetch(at(path), {
        method: "POST",
        headers: CSRF,
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const p = await pkce();
    const { challenge } = await reachConsent(stack, browser, "alice", p);
    const query = `consent_challenge=${encodeURIComponent(challenge)}`;
    expect((await browser.fetch(at(`/auth/consent?${query}`))).status).toBe(200);
    expect(
      (await browser.fetch(at(`/auth/consent-request?challenge=${encodeURIComponent(challenge)}`))).status,
    ).toBe(200);
    await post("/auth/consent/accept", { challenge, subject: "bob", grant_scope: ["openid"] });
    const accepted = await post("/auth/consent/accept", {
      challenge,
      subject: "alice",
      grant_scope: ["openid", "offline_access"],
    });
    expect(accepted.status).toBe(200);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = await codeFrom(stack, browser, redirect_to);
    await post("/auth/token", {
      code: callback.searchParams.get("code"),
      code_verifier: p.verifier,
      redirect_uri: "http://elsewhere.example/cb",
      client_id: CLIENT_ID,
    });
    const token = await post("/auth/token", {
      code: callback.searchParams.get("code"),
      code_verifier: p.verifier,
      redirect_uri: stack.redirectUri,
      client_id: CLIENT_ID,
      nonce: p.nonce,
    });
    expect(token.status).toBe(200);
    await browser.fetch(at("/auth/session"));
    expect((await post("/auth/refresh", { client_id: CLIENT_ID })).status).toBe(200);
    await post("/auth/refresh", { client_id: "someone-else" });
    await browser.fetch(at("/v1/me"));
    await post("/v1/resources", { type: "team", name: "Signed in" });
    await browser.fetch(at("/v1/me"), { headers: { authorization: "Bearer not-a-token" } });
    await browser.fetch(at("/auth/kratos/flow?type=login&id=no-such-flow"));
    await browser.fetch(at("/auth/authorize?response_type=token"));
    await browser.fetch(at("/auth/consent-request?challenge=no-such-challenge"));
    await post("/auth/consent/reject", { challenge: "no-such-challenge" });
    expect((await post("/auth/logout")).status).toBe(200);
    await browser.fetch(at("/auth/session"));
    await post("/auth/refresh");
    await browser.fetch(at("/openapi.json"));
    await browser.fetch(`${stack.adminUrl}/admin/v1/overview`, { headers: ADMIN });
    await browser.fetch(`${stack.adminUrl}/admin/v1/users/alice`, { headers: ADMIN });

    const recorded = await recorder.all();
    const problems = recorded.flatMap((r) => checkers[r.listener].problem(r) ?? []);
    expect(problems).toEqual([]);
    const seen = new Set(
      recorded.map((r) => `${r.method} ${checkers[r.listener].templateOf(r.path)} ${r.status}`),
    );
    for (const answer of [
      "GET /auth/authorize 302",
      "GET /auth/consent 200",
      "GET /auth/consent-request 200",
      "POST /auth/consent/accept 200",
      "POST /auth/token 200",
      "POST /auth/refresh 200",
      "POST /auth/refresh 401",
      "POST /auth/logout 200",
      "GET /v1/me 200",
      "POST /v1/resources 200",
    ])
      expect(seen).toContain(answer);
  }, 60_000);
});
