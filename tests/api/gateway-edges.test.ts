/** Refusals and bad input on the /auth endpoints, through the real handler (no provider needed). */
import { describe, expect, test } from "bun:test";
import { inProcess } from "../helpers/in-process.ts";

const CSRF = { "content-type": "application/json", "x-service-csrf": "1" };

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe("string");
  expect(JSON.stringify(body)).not.toMatch(/stack|SQLITE|at \//);
}

describe("with no issuer configured", async () => {
  const gw = await inProcess();

  test("GET /healthz answers once migrated", async () => {
    const res = await gw.handle("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  test("authorize, token and refresh answer 503", async () => {
    await expectError(await gw.handle("/auth/authorize?client_id=x"), 503, "issuer_not_configured");
    const token = { code: "c", code_verifier: "v", redirect_uri: "http://a/cb", client_id: "x" };
    await expectError(
      await gw.handle("/auth/token", { method: "POST", headers: CSRF, body: JSON.stringify(token) }),
      503,
      "issuer_not_configured",
    );
    await expectError(
      await gw.handle("/auth/refresh", { method: "POST", headers: CSRF, body: "{}" }),
      503,
      "issuer_not_configured",
    );
  });

  test("session report without a cookie, and with a tampered one, is signed out", async () => {
    expect(await (await gw.handle("/auth/session")).json()).toEqual({
      authenticated: false,
      reason: "no_session",
    });
    const tampered = await gw.handle("/auth/session", {
      headers: { cookie: "sg_session=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.BBBB.CCCC" },
    });
    expect(await tampered.json()).toEqual({ authenticated: false, reason: "no_session" });
    expect(tampered.headers.getSetCookie()).toEqual([]);
  });

  test("logout answers 200 and clears cookies even without a session", async () => {
    const res = await gw.handle("/auth/logout", {
      method: "POST",
      headers: { ...CSRF, cookie: "sg_session=junk; sg_session_0=x" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const cleared = res.headers.getSetCookie();
    expect(cleared.some((c) => c.startsWith("sg_session=; Max-Age=0"))).toBe(true);
    expect(cleared.some((c) => c.startsWith("sg_session_0=; Max-Age=0"))).toBe(true);
  });

  test("every POST under /auth needs X-Service-Csrf: 1", async () => {
    for (const path of [
      "/auth/token",
      "/auth/refresh",
      "/auth/logout",
      "/auth/consent/accept",
      "/auth/consent/reject",
    ]) {
      await expectError(
        await gw.handle(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        }),
        403,
        "csrf_required",
      );
      await expectError(
        await gw.handle(path, {
          method: "POST",
          headers: { "content-type": "application/json", "x-service-csrf": "yes" },
          body: "{}",
        }),
        403,
        "csrf_required",
      );
    }
  });

  test("the Kratos proxy refuses bad type/id and answers 503 unconfigured", async () => {
    await expectError(await gw.handle("/auth/kratos/flow?type=admin&id=abc"), 400, "invalid_request");
    await expectError(await gw.handle("/auth/kratos/flow?id=abc"), 400, "invalid_request");
    await expectError(await gw.handle("/auth/kratos/flow?type=login&id=../../etc"), 400, "invalid_request");
    await expectError(
      await gw.handle(`/auth/kratos/flow?type=login&id=${"a".repeat(65)}`),
      400,
      "invalid_request",
    );
    await expectError(
      await gw.handle("/auth/kratos/flow?type=login&id=abc-123"),
      503,
      "kratos_not_configured",
    );
  });

  test("/v1/me needs a credential", async () => {
    await expectError(await gw.handle("/v1/me"), 401, "unauthenticated");
    await expectError(
      await gw.handle("/v1/me", { headers: { authorization: "Bearer abc" } }),
      401,
      "unauthenticated",
    );
    await expectError(
      await gw.handle("/v1/me", { headers: { authorization: "Basic abc" } }),
      401,
      "unauthenticated",
    );
    await expectError(
      await gw.handle("/v1/me", { headers: { cookie: "sg_session=nope" } }),
      401,
      "unauthenticated",
    );
  });

  test("unknown routes are 404 not_found", async () => {
    await expectError(await gw.handle("/nope"), 404, "not_found");
    await expectError(await gw.handle("/auth/nope", { method: "POST", headers: CSRF }), 404, "not_found");
  });
});

describe("bad input with an issuer configured (nothing listens there)", async () => {
  const gw = await inProcess({ OIDC_ISSUER: "http://127.0.0.1:9" });
  const post = (path: string, body: string, headers: Record<string, string> = CSRF) =>
    gw.handle(path, { method: "POST", headers, body });

  test("malformed JSON is 400 invalid_json", async () => {
    await expectError(await post("/auth/token", "{not json"), 400, "invalid_json");
    await expectError(await post("/auth/consent/accept", '{"challenge":'), 400, "invalid_json");
  });

  test("wrong types are 400 invalid_request naming the field", async () => {
    const res = await post(
      "/auth/token",
      JSON.stringify({ code: 1, code_verifier: "v", redirect_uri: "http://a/cb", client_id: "x" }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.code).toBe("invalid_request");
    expect(body.error).toContain("code");
    await expectError(await post("/auth/token", JSON.stringify({ code: "c" })), 400, "invalid_request");
    await expectError(
      await post(
        "/auth/consent/accept",
        JSON.stringify({ challenge: "c", subject: "s", grant_scope: "openid" }),
      ),
      400,
      "invalid_request",
    );
    await expectError(
      await post(
        "/auth/token",
        JSON.stringify({ code: "c".repeat(10_000), code_verifier: "v", redirect_uri: "u", client_id: "x" }),
      ),
      400,
      "invalid_request",
    );
    await expectError(await post("/auth/token", "[]"), 400, "invalid_request");
  });

  test("bodies over 64 KiB are 413 payload_too_large", async () => {
    const huge = JSON.stringify({ code: "x".repeat(100 * 1024) });
    await expectError(await post("/auth/token", huge), 413, "payload_too_large");
    await expectError(await post("/auth/consent/accept", huge), 413, "payload_too_large");
  });

  test("refresh without a session is 401 and clears cookies, without calling the provider", async () => {
    const res = await post("/auth/refresh", "{}", { ...CSRF, cookie: "sg_session=forged" });
    await expectError(res, 401, "unauthenticated");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("sg_session=; Max-Age=0"))).toBe(true);
  });

  test("a provider that cannot be reached is 502 idp_unavailable", async () => {
    await expectError(
      await gw.handle(
        "/auth/authorize?response_type=code&code_challenge=abc&code_challenge_method=S256&client_id=x&redirect_uri=http%3A%2F%2Flocalhost%2F",
      ),
      502,
      "idp_unavailable",
    );
    await expectError(await gw.handle("/auth/consent-request?challenge=abc"), 502, "idp_unavailable");
    // A decision on a challenge this client never loaded is refused before the provider is asked.
    await expectError(
      await post("/auth/consent/reject", JSON.stringify({ challenge: "abc" })),
      403,
      "consent_not_bound",
    );
  });

  test("logout answers 200 with the provider down", async () => {
    const res = await post("/auth/logout", "");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
