/**
 * `Origin: null` (a sandboxed frame, a data: page, a redirect across schemes) is never a CORS origin,
 * even when a client has a custom-scheme redirect URI such as `com.example.app:/cb`, whose URL origin
 * is the string "null". Only http(s) origins enter the allow-list. In process, through the real handler.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { expectError, makeKit } from "../helpers/resources-kit.ts";

const APPS: AppsFile = {
  apps: [
    {
      id: "native",
      clients: [
        { clientId: "web", redirectUris: ["http://app.example/cb"] },
        { clientId: "ios", redirectUris: ["com.example.app:/cb", "com.example.app://callback"] },
      ],
      types: { team: {} },
    },
  ],
};

const k = await makeKit(APPS, { ADMIN_TOKEN: "null-origin-token" });
afterAll(() => k.gw.gateway.close());

const PREFLIGHT = {
  "access-control-request-method": "POST",
  "access-control-request-headers": "x-service-csrf",
};

describe("Origin: null gets no CORS grant", () => {
  test("a preflight from Origin: null gets no access-control-allow-origin with a custom-scheme client", async () => {
    const refused = await k.raw("/v1/resources", {
      method: "OPTIONS",
      headers: { origin: "null", ...PREFLIGHT },
    });
    expect(refused.status).toBe(204);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(refused.headers.get("access-control-allow-credentials")).toBeNull();
    // The http(s) redirect URI's origin is still granted.
    const granted = await k.raw("/v1/resources", {
      method: "OPTIONS",
      headers: { origin: "http://app.example", ...PREFLIGHT },
    });
    expect(granted.headers.get("access-control-allow-origin")).toBe("http://app.example");
  });

  test("a request from Origin: null gets no access-control-allow-origin", async () => {
    const reply = await k.raw("/auth/session", { headers: { origin: "null" } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ authenticated: false, reason: "no_session" });
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a signed-in call from Origin: null is 403 origin_not_allowed, no grant, nothing changes", async () => {
    for (const clientId of ["ios", "web"]) {
      await k.h("null-user", clientId);
      const before = await k.snapshot();
      const reply = await k.call(
        "null-user",
        "POST",
        "/v1/resources",
        { type: "team", name: "from null" },
        {
          clientId,
          headers: { origin: "null" },
        },
      );
      expectError(reply, 403, "origin_not_allowed");
      expect(reply.headers.get("access-control-allow-origin")).toBeNull();
      expect(await k.snapshot()).toEqual(before);
    }
  });

  test("a deploy that adds a custom-scheme client does not make Origin: null an origin", async () => {
    const res = await k.gw.admin("/admin/v1/apps/native/deploy", {
      method: "POST",
      headers: { authorization: "Bearer null-origin-token", "content-type": "application/json" },
      body: JSON.stringify({
        ...APPS.apps[0],
        clients: [...APPS.apps[0]!.clients, { clientId: "android", redirectUris: ["com.example.droid:/cb"] }],
      }),
    });
    expect(res.status).toBe(200);
    const reply = await k.raw("/v1/resources", {
      method: "OPTIONS",
      headers: { origin: "null", ...PREFLIGHT },
    });
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
    expect(k.gw.gateway.apps.isAllowedOrigin("null")).toBe(false);
  });
});
