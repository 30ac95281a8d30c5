/** CORS for registered origins only, the admin listener's guard, and the welcome credit's uniqueness. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DeletedUsers, Pseudonyms } from "../../src/server/accounts/pseudonym.ts";
import { purgeEnded } from "../../src/server/auth/session-upkeep.ts";
import { balanceMicros, grantWelcomeCredit, hasWelcomeCredit } from "../../src/server/credits/ledger.ts";
import { openStorage } from "../../src/server/db/open.ts";
import { sql } from "../helpers/db.ts";
import { inProcess } from "../helpers/in-process.ts";
import { tempDir } from "../helpers/stack.ts";

const apps = {
  apps: [
    {
      id: "web",
      clients: [
        {
          clientId: "web",
          redirectUris: ["http://localhost:5173/callback"],
          origins: ["https://app.example.com"],
        },
      ],
    },
  ],
};

describe("CORS", async () => {
  const gw = await inProcess({}, apps);

  test("a registered origin gets credentials-enabled CORS and a preflight allowing the CSRF header", async () => {
    const preflight = await gw.handle("/auth/refresh", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-service-csrf",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("x-service-csrf");
    const get = await gw.handle("/auth/session", { headers: { origin: "https://app.example.com" } });
    expect(get.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const error = await gw.handle("/v1/me", { headers: { origin: "https://app.example.com" } });
    expect(error.status).toBe(401);
    expect(error.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
  });

  test("an unregistered origin gets no Access-Control-Allow-Origin", async () => {
    const preflight = await gw.handle("/auth/refresh", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const get = await gw.handle("/auth/session", { headers: { origin: "https://evil.example" } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("GET /auth/origin tells any page whether its origin is registered for a client, readable by it", async () => {
    const ask = (origin: string, query = "") =>
      gw.handle(`/auth/origin${query}`, { headers: origin ? { origin } : {} });
    const refused = await ask("https://evil.example", "?client_id=web");
    expect(refused.status).toBe(200);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-allow-credentials")).toBeNull();
    expect(await refused.json()).toEqual({ origin: "https://evil.example", allowed: false });
    const registered = await ask("https://app.example.com", "?client_id=web");
    expect(registered.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(await registered.json()).toEqual({ origin: "https://app.example.com", allowed: true });
    // An unknown client accepts no origin; without client_id, any client's origin counts.
    expect(await (await ask("https://app.example.com", "?client_id=nobody")).json()).toMatchObject({
      allowed: false,
    });
    expect(await (await ask("http://localhost:5173")).json()).toMatchObject({ allowed: true });
    expect(await (await ask("")).json()).toEqual({ origin: null, allowed: true });
    const bad = await ask("https://evil.example", `?client_id=${"x".repeat(201)}`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_request" });
  });
});

describe("admin listener", () => {
  test("503 admin_disabled without ADMIN_TOKEN", async () => {
    const gw = await inProcess();
    const res = await gw.admin("/admin/v1/overview", { headers: { authorization: "Bearer anything" } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "admin_disabled" });
  });

  test("401 without or with a wrong token; the overview with the right one", async () => {
    const gw = await inProcess({ ADMIN_TOKEN: "s3cret-admin" });
    const missing = await gw.admin("/admin/v1/overview");
    expect(missing.status).toBe(401);
    // An operator is told what to send, not to sign in (the admin API has no sign-in).
    const body = await missing.json();
    expect(body).toMatchObject({ code: "unauthenticated" });
    expect(body.error).toContain("Authorization: Bearer <ADMIN_TOKEN>");
    expect(body.error).not.toMatch(/sign in/i);
    expect(
      (await gw.admin("/admin/v1/overview", { headers: { authorization: "Bearer s3cret-admi" } })).status,
    ).toBe(401);
    const ok = await gw.admin("/admin/v1/overview", { headers: { authorization: "Bearer s3cret-admin" } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ sessions: { active: 0 }, tokenCache: { hits: 0, misses: 0 } });
  });
});

describe("welcome credit", () => {
  test("two connections racing to grant it: exactly one row, one true", async () => {
    const path = join(tempDir(), "credits.db");
    const a = await openStorage(path);
    const b = await openStorage(path);
    const deleted = new DeletedUsers(new Pseudonyms([new Uint8Array(32)]), a);
    const results = await Promise.all([
      grantWelcomeCredit(a, deleted, "racer", 5_000_000),
      grantWelcomeCredit(b, deleted, "racer", 5_000_000),
      grantWelcomeCredit(a, deleted, "racer", 5_000_000),
    ]);
    expect(results.filter(Boolean)).toEqual([true]);
    expect(await hasWelcomeCredit(b, "racer")).toBe(true);
    expect(await balanceMicros(a, "racer")).toBe(5_000_000);
    const events = await sql(a).all("select type, user_id from events where type = 'credit.welcome'");
    expect(events).toEqual([{ type: "credit.welcome", user_id: "racer" }]);
    await a.close();
    await b.close();
  });
});

describe("session retention", () => {
  test("rows ended or expired more than 7 days ago are purged; live and recent ones stay", async () => {
    const gw = await inProcess();
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const make = (id: string, endedAt: number | null, expiresAt: number) =>
      sql(gw.gateway.storage).run(
        "INSERT INTO sessions (id, user_id, client_id, created_at, last_seen_at, access_expires_at, expires_at, ended_at) VALUES (?, 'u', 'c', 0, 0, 0, ?, ?)",
        id,
        expiresAt,
        endedAt,
      );
    await make("live", null, now + 30 * day);
    await make("ended-recently", now - 2 * day, now + 28 * day);
    await make("ended-long-ago", now - 8 * day, now + 22 * day);
    await make("expired-long-ago", null, now - 8 * day);
    expect(await purgeEnded(gw.gateway.storage, 7 * day, now)).toBe(2);
    const left = (await sql(gw.gateway.storage).all("SELECT id FROM sessions ORDER BY id")) as Array<{
      id: string;
    }>;
    expect(left.map((r) => r.id)).toEqual(["ended-recently", "live"]);
    expect(await purgeEnded(gw.gateway.storage, 7 * day, now)).toBe(0);
  });
});
