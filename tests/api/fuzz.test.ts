/**
 * 10,000 generated bad requests across every public and admin route, from a printed seed (set
 * FUZZ_SEED to replay one): never a 5xx, every error a JSON `{error, code}`, the fixture the requests
 * had no right to change unchanged, and /healthz still OK at the end.
 */
import { afterAll, expect, test } from "bun:test";
import { startDevIdp } from "../../src/devidp/index.ts";
import { makeKit, TEST_APPS } from "../helpers/resources-kit.ts";

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
console.log(`fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);

/** mulberry32: small, fast, reproducible. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;

// A real provider behind the gateway (the development one), so provider calls answer as Hydra would.
const idp = await startDevIdp({
  clients: [{ clientId: "web", redirectUris: ["http://localhost/cb"] }],
  consentUrl: "http://localhost/auth/consent",
  adminApiKey: "fuzz-idp-key",
  quiet: true,
});
const k = await makeKit(TEST_APPS, {
  ADMIN_TOKEN: "fuzz-admin",
  OIDC_ISSUER: idp.issuer,
  IDP_ADMIN_URL: idp.adminUrl,
  IDP_ADMIN_API_KEY: "fuzz-idp-key",
  KRATOS_PUBLIC_URL: idp.kratosUrl,
});
afterAll(async () => {
  k.gw.gateway.close();
  await idp.stop();
}, 30_000);
const owner = "fuzz-owner";
const team = await k.create(owner, "team", "fuzz fixture team");
await k.addMember(owner, team.id, "fuzz-member", "writer");
const board = await k.create(owner, "project", "fuzz fixture project"); // members-only: nothing the fuzzer may join
const fuzzer = await k.h("fuzz-user");
const fixture = async () => ({
  resources: await k.db.all("SELECT * FROM resources WHERE owner_id = ? ORDER BY id", owner),
  members: await k.db.all(
    "SELECT * FROM members WHERE resource_id IN (?, ?) AND user_id <> 'fuzz-user' ORDER BY user_id",
    team.id,
    board.id,
  ),
});

const WEIRD = [
  "",
  " ",
  "%",
  "%E0%A4%A",
  "%00",
  "%ZZ",
  "a%0Ab",
  "%E2%80%AE",
  "%F0%9F%98%80",
  "..",
  "%2e%2e%2f",
  "x".repeat(3000),
  "null",
  "undefined",
  "-1",
  "1e309",
  "__proto__",
  "constructor",
  "app:main",
  "%u0000",
  "\u200B",
  "<script>",
  "' OR 1=1 --",
];
const ids = () => (chance(0.3) ? pick([team.id, board.id]) : chance(0.5) ? crypto.randomUUID() : pick(WEIRD));
const seg = () => encodeURIComponent(ids()).replaceAll("%25", chance(0.5) ? "%" : "%25");

const ROUTES: Array<[string, () => string]> = [
  ["GET", () => "/healthz"],
  ["GET", () => "/"],
  ["GET", () => "/auth/session"],
  ["GET", () => `/auth/authorize?${query()}`],
  ["POST", () => "/auth/token"],
  ["POST", () => "/auth/refresh"],
  ["POST", () => "/auth/logout"],
  ["GET", () => `/auth/consent-request?${query()}`],
  ["POST", () => "/auth/consent/accept"],
  ["POST", () => "/auth/consent/reject"],
  ["GET", () => `/auth/consent?${query()}`],
  ["GET", () => `/auth/kratos/flow?${query()}`],
  ["GET", () => "/v1/me"],
  ["GET", () => `/v1/resources?${query()}`],
  ["POST", () => "/v1/resources"],
  ["GET", () => `/v1/resources/browse?${query()}`],
  ["GET", () => `/v1/resources/static?${query()}`],
  ["GET", () => `/v1/resources/${seg()}`],
  ["DELETE", () => `/v1/resources/${seg()}`],
  ["GET", () => `/v1/resources/${seg()}/members`],
  ...["invite", "request", "accept", "reject", "join", "leave", "setRole", "remove"].map(
    (verb) => ["POST", () => `/v1/resources/${seg()}/${verb}`] as [string, () => string],
  ),
  ["GET", () => `/v1/resources/${seg()}/${seg()}`],
];
const ADMIN_ROUTES: Array<[string, () => string]> = [
  ["GET", () => "/admin/v1/overview"],
  ["GET", () => `/admin/v1/sessions?${query()}`],
  ["DELETE", () => `/admin/v1/sessions/${seg()}`],
  ["GET", () => `/admin/v1/users/${seg()}`],
  ["GET", () => `/admin/v1/pending?${query()}`],
  ["DELETE", () => `/admin/v1/pending/${seg()}/${seg()}`],
  ["GET", () => `/admin/v1/resources?${query()}`],
  ["GET", () => `/admin/v1/resources/${seg()}/members`],
  ["GET", () => `/admin/v1/resources/${seg()}`],
  ["POST", () => `/admin/v1/resources/${seg()}/setRole`],
  ["POST", () => `/admin/v1/resources/${seg()}/remove`],
  ["DELETE", () => `/admin/v1/users/${seg()}/sessions`],
  ["GET", () => `/admin/v1/audit?${query()}`],
  ["POST", () => `/admin/v1/apps/${seg()}/deploy`],
  ["POST", () => "/admin/v1/data/authorize-write"],
  ["POST", () => "/admin/v1/data/links"],
  ["GET", () => `/admin/v1/data/links?${query()}`],
  ["GET", () => "/metrics"],
];
const KEYS = [
  "type",
  "query",
  "limit",
  "cursor",
  "slug",
  "state",
  "challenge",
  "consent_challenge",
  "id",
  "client_id",
  "redirect_uri",
  "userId",
  "resourceId",
];
function query(): string {
  const parts: string[] = [];
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) parts.push(`${pick(KEYS)}=${seg()}`);
  if (chance(0.1)) parts.push(pick(["limit=0", "limit=abc", "limit=99999999999", "cursor=!!", "state=gone"]));
  return parts.join("&");
}
/**
 * `admin`: the body goes with an admin call, which may carry the valid operator token. Then it never
 * names the fixture's member: an operator's setRole or remove of a real member of a real resource is a
 * good request, and changes the fixture as it should (seed 1885353884 drew exactly that).
 */
function value(admin: boolean, depth = 0): unknown {
  const r = random();
  if (r < 0.25) return pick(WEIRD);
  if (r < 0.35) return Math.floor(random() * 1e6) * (chance(0.5) ? -1 : 1);
  if (r < 0.4) return null;
  if (r < 0.45) return chance(0.5);
  if (r < 0.55 && depth < 2) return [value(admin, depth + 1), value(admin, depth + 1)];
  if (r < 0.65 && depth < 2) return { [pick(KEYS)]: value(admin, depth + 1) };
  if (r < 0.7)
    return pick([
      team.id,
      board.id,
      admin ? "fuzz-stranger" : "fuzz-member",
      "fuzz-owner",
      "reader",
      "admin",
      "owner",
    ]);
  return pick(["team", "album", "_app", "feed", "posts", "writer", "x".repeat(300), "\uD800", "a\u202Eb"]);
}
function body(admin: boolean): string | undefined {
  const r = random();
  if (r < 0.1) return undefined;
  if (r < 0.2) return pick(["{", "[]", "null", "42", '"text"', "{]", "\u0000", "{}".repeat(40_000)]);
  const object: Record<string, unknown> = {};
  const n = Math.floor(random() * 5);
  for (let i = 0; i < n; i++)
    object[pick([...KEYS, "name", "role", "code", "grant_scope", "subject", "table", "rowId"])] =
      value(admin);
  return JSON.stringify(object);
}
function headers(admin: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  if (chance(0.8))
    h["content-type"] = pick([
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=utf-8",
    ]);
  if (admin) {
    if (chance(0.7))
      h.authorization = chance(0.8) ? "Bearer fuzz-admin" : pick(["Bearer nope", "Basic eA==", "Bearer"]);
  } else {
    if (chance(0.6))
      h.cookie = chance(0.8)
        ? fuzzer.cookie!
        : pick(["sg_session=garbage", "sg_session=a.b.c.d.e", "sg_session_0=x"]);
    if (chance(0.6)) h["x-service-csrf"] = chance(0.9) ? "1" : "0";
    if (chance(0.1)) h.authorization = pick(["Bearer x", `Bearer ${"y".repeat(500)}`, "Basic Zm9vOmJhcg=="]);
    if (chance(0.2)) h.origin = pick(["http://evil.example", "null", "http://localhost"]);
  }
  return h;
}

test(`${REQUESTS} generated bad requests: no 5xx, JSON errors, the fixture unchanged, /healthz OK`, async () => {
  const before = await fixture();
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < REQUESTS && failures.length < 5; i++) {
    const admin = chance(0.35);
    const [method, path] = pick(admin ? ADMIN_ROUTES : ROUTES);
    const url = path();
    const init: RequestInit = { method, headers: headers(admin) };
    if (method !== "GET") init.body = body(admin);
    let res: Response;
    try {
      res = admin ? await k.gw.admin(url, init) : await k.gw.handle(url, init);
    } catch (error) {
      failures.push(`#${i} ${method} ${url} threw ${(error as Error).message}`);
      continue;
    }
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const where = `#${i} ${method} ${url.slice(0, 120)} body=${String(init.body).slice(0, 120)}`;
    if (res.status >= 500) failures.push(`${where} → ${res.status} ${text.slice(0, 200)}`);
    else if (res.status >= 400 && !(res.headers.get("content-type") ?? "").includes("text/html")) {
      let parsed: { error?: unknown; code?: unknown } | undefined;
      try {
        parsed = JSON.parse(text);
      } catch {}
      if (typeof parsed?.error !== "string" || typeof parsed?.code !== "string")
        failures.push(`${where} → ${res.status} not {error, code}: ${text.slice(0, 200)}`);
    }
  }
  console.log(
    `fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
  );
  expect(failures).toEqual([]);
  // The run reached the routes' own checks, not only the guards in front of them.
  expect(
    [...statuses.keys()].filter((status) => status >= 400 && status < 500).length,
  ).toBeGreaterThanOrEqual(6);
  expect(await fixture()).toEqual(before);
  expect(await (await k.gw.handle("/healthz")).json()).toEqual({ ok: true });
}, 120_000);
