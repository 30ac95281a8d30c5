/**
 * A person's own sessions (`GET /auth/sessions`, `DELETE /auth/sessions/:id`,
 * `POST /auth/sessions/revoke-others`) on the engine the suite runs on: the list holds exactly the
 * caller's live sessions in the caller's app, with `current` right; ending one refuses its cookie from
 * the next request with the reason `signed_out_elsewhere` and writes one event; another person's id,
 * another app's, an ended one and a made-up one are the same 404; bad ids and a missing CSRF header
 * change nothing; revoke-others raced with itself ends (and records) each session once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { sql } from "../helpers/db.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";

const APPS: AppsFile = {
  apps: [
    {
      id: "a",
      clients: [
        { clientId: "a-web", redirectUris: ["http://127.0.0.1:5999/callback"] },
        {
          clientId: "a-server",
          redirectUris: ["http://127.0.0.1:5999/callback"],
          clientSecret: "a-secret-0123456789",
        },
      ],
      types: { team: {} },
    },
    {
      id: "b",
      clients: [{ clientId: "b-web", redirectUris: ["http://127.0.0.1:5998/callback"] }],
      types: { team: {} },
    },
  ],
};

let gw: InProcess;
beforeAll(async () => {
  gw = await inProcess({}, APPS);
});
afterAll(() => gw.gateway.close());

const db = () => sql(gw.gateway.storage);
const idOf = async (headers: Record<string, string>) =>
  (await gw.gateway.sessions.resolve(headers.cookie ?? null))!.row.id;
const list = async (headers: Record<string, string>) => {
  const res = await gw.handle("/auth/sessions", { headers: { cookie: headers.cookie! } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { sessions: Array<{ id: string; current: boolean; client_id: string }> })
    .sessions;
};
const revoke = (headers: Record<string, string>, id: string) =>
  gw.handle(`/auth/sessions/${id}`, { method: "DELETE", headers });
const revokeOthers = (headers: Record<string, string>) =>
  gw.handle("/auth/sessions/revoke-others", { method: "POST", headers });
const sessionReport = async (headers: Record<string, string>) =>
  (await gw.handle("/auth/session", { headers: { cookie: headers.cookie! } })).json();
const liveCount = () => db().count("SELECT count(*) FROM sessions WHERE ended_at IS NULL");
const endedEvents = (id: string) =>
  db().count("SELECT count(*) FROM events WHERE type = 'session.ended' AND data LIKE ?", `%${id}%`);

/** A person with two sessions in app a's web client, one in its server client, one in app b. */
async function person(user: string) {
  const web1 = await sessionFor(gw, user, "a-web");
  const web2 = await sessionFor(gw, user, "a-web");
  const server = await sessionFor(gw, user, "a-server");
  const otherApp = await sessionFor(gw, user, "b-web");
  return { web1, web2, server, otherApp };
}

describe("GET /auth/sessions", () => {
  test("lists exactly the caller's live sessions in the caller's app, the caller's marked current", async () => {
    const p = await person("lister");
    const stranger = await sessionFor(gw, "stranger", "a-web");
    const ended = await sessionFor(gw, "lister", "a-web");
    await gw.gateway.sessions.end(await idOf(ended), "logout", "lister");
    const expired = await sessionFor(gw, "lister", "a-web");
    await db().run("UPDATE sessions SET expires_at = 1 WHERE id = ?", await idOf(expired));

    const sessions = await list(p.web1);
    const ids = [await idOf(p.web1), await idOf(p.web2), await idOf(p.server)];
    expect(sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(sessions.filter((s) => s.current).map((s) => s.id)).toEqual([ids[0]!]);
    expect(sessions.find((s) => s.id === ids[2])?.client_id).toBe("a-server");
    expect(sessions.map((s) => s.id)).not.toContain(await idOf(stranger));
    // Never the cookie's value.
    expect(JSON.stringify(sessions)).not.toContain(p.web1.cookie!.split("=")[1]!);

    const fromOtherApp = await list(p.otherApp);
    expect(fromOtherApp.map((s) => [s.id, s.current])).toEqual([[await idOf(p.otherApp), true]]);
  });

  test("without a live session: 401 with why", async () => {
    const res = await gw.handle("/auth/sessions");
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "unauthenticated", reason: "no_session" });
  });
});

describe("DELETE /auth/sessions/:id", () => {
  test("ends that session: its cookie is refused next, with the reason, and one event is written", async () => {
    const p = await person("revoker");
    const target = await idOf(p.web2);
    const res = await revoke(p.web1, target);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, ended: 1 });
    expect(await sessionReport(p.web2)).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
    const refused = await gw.handle("/v1/me", { headers: { cookie: p.web2.cookie! } });
    expect(refused.status).toBe(401);
    expect((await db().get("SELECT end_reason FROM sessions WHERE id = ?", target))?.end_reason).toBe(
      "signed_out_elsewhere",
    );
    const event = await db().get<{ actor: string }>(
      "SELECT actor FROM events WHERE type = 'session.ended' AND data LIKE ?",
      `%${target}%`,
    );
    expect(event?.actor).toBe("revoker");
    expect(await endedEvents(target)).toBe(1);
    expect((await sessionReport(p.web1)).authenticated).toBe(true);
  });

  test("another person's, another app's, an ended and an unknown id: the same 404, nothing changed", async () => {
    const p = await person("prober");
    const stranger = await sessionFor(gw, "someone-else", "a-web");
    const ended = await sessionFor(gw, "prober", "a-web");
    const endedId = await idOf(ended);
    await gw.gateway.sessions.end(endedId, "logout", "prober");
    const before = await liveCount();
    const ids = [await idOf(stranger), await idOf(p.otherApp), endedId, "AAAAAAAAAAAAAAAAAAAAAA"];
    const answers = await Promise.all(ids.map(async (id) => (await revoke(p.web1, id)).json()));
    for (const body of answers)
      expect(body).toEqual({ error: "No live session with that id.", code: "not_found" });
    expect(await liveCount()).toBe(before);
    expect((await sessionReport(stranger)).authenticated).toBe(true);
    expect((await db().get("SELECT end_reason FROM sessions WHERE id = ?", endedId))?.end_reason).toBe(
      "logout",
    );
  });

  test("bad ids (control characters, huge, look-alikes) are 4xx {error, code} and change nothing", async () => {
    const p = await person("badids");
    const real = await idOf(p.web2);
    const before = await liveCount();
    const bad = [
      `${real}%00`,
      `${real}%0A`,
      "%1B%5B31m",
      "x".repeat(300),
      "y".repeat(10_000),
      `${real}%20`,
      `%20${real}`,
      encodeURIComponent(`${real.slice(0, -1)}ǃ`),
      encodeURIComponent(real.replace(/[a-z]/, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))),
      "..%2F..%2Fadmin",
      real.toUpperCase() === real ? real.toLowerCase() : real.toUpperCase(),
    ];
    for (const id of bad) {
      const res = await revoke(p.web1, id);
      expect([id.slice(0, 40), res.status >= 400 && res.status < 500]).toEqual([id.slice(0, 40), true]);
      const body = (await res.json()) as { error?: unknown; code?: unknown };
      expect(typeof body.error).toBe("string");
      expect(typeof body.code).toBe("string");
    }
    expect(await liveCount()).toBe(before);
    expect((await sessionReport(p.web2)).authenticated).toBe(true);
  });

  test("without the CSRF header: 403 csrf_required, nothing changed", async () => {
    const p = await person("nocsrf");
    const { "x-service-csrf": _, ...noCsrf } = p.web1;
    const before = await liveCount();
    for (const res of [await revoke(noCsrf, await idOf(p.web2)), await revokeOthers(noCsrf)]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: "csrf_required" });
    }
    expect(await liveCount()).toBe(before);
  });
});

describe("POST /auth/sessions/revoke-others", () => {
  test("leaves only the current session of the person in this app; other apps and people untouched", async () => {
    const p = await person("others");
    const stranger = await sessionFor(gw, "bystander", "a-web");
    const res = await revokeOthers(p.web1);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, ended: 2 });
    expect((await list(p.web1)).map((s) => [s.id, s.current])).toEqual([[await idOf(p.web1), true]]);
    for (const gone of [p.web2, p.server])
      expect(await sessionReport(gone)).toEqual({ authenticated: false, reason: "signed_out_elsewhere" });
    expect((await sessionReport(p.otherApp)).authenticated).toBe(true);
    expect((await sessionReport(stranger)).authenticated).toBe(true);
  });

  test("raced with itself: each session ends once, with one event, and the answers add up", async () => {
    const user = "racer";
    const current = await sessionFor(gw, user, "a-web");
    const others = await Promise.all(Array.from({ length: 8 }, () => sessionFor(gw, user, "a-web")));
    const otherIds = await Promise.all(others.map(idOf));
    const answers = await Promise.all(Array.from({ length: 10 }, () => revokeOthers(current)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const ended = (
      await Promise.all(answers.map(async (r) => ((await r.json()) as { ended: number }).ended))
    ).reduce((a, b) => a + b, 0);
    expect(ended).toBe(8);
    for (const id of otherIds) expect(await endedEvents(id)).toBe(1);
    expect((await sessionReport(current)).authenticated).toBe(true);
  });
});
