/**
 * The front-door scenario, part two: `/v1/me` and `/v1/resources/*`, each route with a cookie and a
 * bearer token, read cold and then warm (the second read is the one today's fast path answers from
 * memory), and their refusals: no or unknown credential, a cookie without the CSRF header, another
 * app's origin, malformed JSON, wrong types, unknown ids, a body over the limit, a header block over it.
 * It includes every request today's fast-path test compares (tests/api/fast-path.test.ts).
 */

import type { Door } from "./front-door.ts";
import { bound } from "./front-door-auth.ts";
import { APP_ORIGIN, CSRF, OTHER_ORIGIN } from "./stack.ts";

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";

export async function resourceRoutes(door: Door) {
  const { call } = bound(door);
  const { alice, bob, carol } = door.users as Required<typeof door.users>;
  const write = (who: Record<string, string>) => ({ ...who, ...CSRF });
  // Both credentials, twice each: cold, then what the first read left in memory.
  const twice = async (label: string, path: string, extra: Record<string, string> = {}) => {
    for (const [name, user] of [
      ["alice", alice],
      ["bob", bob],
    ] as const)
      for (const kind of ["cookie", "bearer"] as const)
        for (const round of ["cold", "warm"])
          await call(`${label}, ${name} by ${kind} (${round})`, "GET", path, {
            headers: { ...user![kind], ...extra },
          });
  };

  await twice("me", "/v1/me");
  await call("me, registered origin", "GET", "/v1/me", { headers: { ...alice!.bearer, origin: APP_ORIGIN } });
  await call("me, another app's origin", "GET", "/v1/me", {
    headers: { ...alice!.bearer, origin: OTHER_ORIGIN },
  });
  await call("me, none", "GET", "/v1/me");
  await call("me, unknown bearer", "GET", "/v1/me", {
    headers: { authorization: "Bearer never-seen-token" },
  });
  await call("me, Basic", "GET", "/v1/me", { headers: { authorization: "Basic YTpi" } });
  await call("me, HEAD", "HEAD", "/v1/me", { headers: alice!.bearer });
  await call("me, headers over the limit", "GET", "/v1/me", {
    headers: { ...alice!.bearer, "x-pad": "a".repeat(13_000) },
  });
  await call("me, a body on a GET", "GET", "/v1/me", {
    headers: { ...alice!.bearer, "content-length": "2" },
  });

  const create = async (
    label: string,
    body: unknown,
    headers: Record<string, string> = write(alice!.cookie),
  ) => call(`create, ${label}`, "POST", "/v1/resources", { headers, body });
  const album = (
    await create("an album", { type: "album", name: "album one", visibility: "discoverable" })
  ).json<{ id: string }>().id;
  await create(
    "a second album, by bearer",
    { type: "album", name: "album two" },
    { ...alice!.bearer, ...CSRF },
  );
  const team = (await create("a team", { type: "team", name: "team one" })).json<{ id: string }>().id;
  await create(
    "no CSRF",
    { type: "team", name: "x" },
    { ...alice!.cookie, "content-type": "application/json" },
  );
  await create("no credential", { type: "team", name: "x" }, CSRF);
  await create("malformed JSON", "{", write(alice!.cookie));
  await create("an array", "[]", write(alice!.cookie));
  await create("wrong types", { type: 1, name: ["x"] }, write(alice!.cookie));
  await create("a bad visibility", { type: "team", name: "x", visibility: "public" });
  await create("an empty name", { type: "team", name: "  " });
  await create("a control character", { type: "team", name: "a\u0007b" });
  await create("an unknown type", { type: "nope", name: "x" });
  await create("a reserved type", { type: "_app", name: "x" });
  await create("text/plain", "{}", { ...alice!.cookie, "x-service-csrf": "1", "content-type": "text/plain" });
  await create("a body over 64 KiB", { type: "team", name: "x".repeat(70_000) });
  await create(
    "another app's origin",
    { type: "team", name: "x" },
    { ...write(alice!.bearer), origin: OTHER_ORIGIN },
  );

  await call("list", "GET", "/v1/resources", { headers: alice!.bearer });
  await call("list, invited", "GET", "/v1/resources?state=invited", { headers: alice!.bearer });
  await call("list, bad state", "GET", "/v1/resources?state=nope", { headers: alice!.bearer });
  await call("list, by type", "GET", "/v1/resources?type=team", { headers: alice!.cookie });

  const bobBrowse = { ...bob!.bearer, origin: APP_ORIGIN };
  const first = await call("browse, one a page", "GET", "/v1/resources/browse?type=album&limit=1", {
    headers: bobBrowse,
  });
  const next = first.json<{ nextCursor: string }>().nextCursor;
  for (const path of [
    "/v1/resources/browse",
    "/v1/resources/browse?type=album&limit=1",
    `/v1/resources/browse?limit=1&type=album&cursor=${next}`,
    "/v1/resources/browse?query=one",
  ])
    for (const round of ["cold", "warm"]) await call(`browse ${round}`, "GET", path, { headers: bobBrowse });
  for (const path of [
    "/v1/resources/browse?type=album&type=team",
    "/v1/resources/browse?query=a%20b",
    "/v1/resources/browse?query=a+b",
    "/v1/resources/browse?type=",
    "/v1/resources/browse?limit=0",
    "/v1/resources/browse?limit=500",
    "/v1/resources/browse?cursor=not-a-cursor",
    "/v1/resources/browse?other=1",
    "/v1/resources/browse?limit=3&",
    `/v1/resources/browse?query=${"q".repeat(201)}`,
    "/v1/resources/browse?type=never-read",
  ])
    await call("browse, parameters", "GET", path, { headers: bob!.bearer });
  await call("static, no parameters", "GET", "/v1/resources/static", { headers: bob!.bearer });
  await call("static, unknown", "GET", "/v1/resources/static?type=feed&slug=global", {
    headers: bob!.bearer,
  });

  await twice("resource", `/v1/resources/${album}`);
  await twice("roster", `/v1/resources/${album}/members`);
  await twice("members-only resource", `/v1/resources/${team}`);
  await twice("members-only roster", `/v1/resources/${team}/members`);
  for (const path of [
    `/v1/resources/${UNKNOWN}`,
    `/v1/resources/${UNKNOWN}/members`,
    `/v1/resources/${album}?x=1`,
    `/v1/resources/${album}/`,
    `/v1/resources/${encodeURIComponent(album)}%2Fmembers`,
    "/v1/resources/not-an-id",
  ])
    await call("resource, odd path", "GET", path, { headers: bob!.bearer });
  await call("resource, none", "GET", `/v1/resources/${album}`);
  await call("resource, another app's origin", "GET", `/v1/resources/${album}`, {
    headers: { ...alice!.bearer, origin: OTHER_ORIGIN },
  });

  // The bodiless writes, as the fast path takes them and as it declines them.
  const byBearer = { ...bob!.bearer, origin: APP_ORIGIN };
  const byCookie = { ...bob!.cookie, ...CSRF, "content-length": "0" };
  for (const [way, headers] of [
    ["bearer", byBearer],
    ["cookie", byCookie],
  ] as const)
    for (const round of ["first", "second"]) {
      await call(`join by ${way} (${round})`, "POST", `/v1/resources/${album}/join`, { headers });
      await call(`join again by ${way} (${round})`, "POST", `/v1/resources/${album}/join`, { headers });
      await call(`roster after join (${round})`, "GET", `/v1/resources/${album}/members`, {
        headers: alice!.bearer,
      });
      await call(`leave by ${way} (${round})`, "POST", `/v1/resources/${album}/leave`, { headers });
      await call(`browse after leave (${round})`, "GET", "/v1/resources/browse?type=album", {
        headers: alice!.bearer,
      });
    }
  const join = `/v1/resources/${album}/join`;
  await call("join, members-only", "POST", `/v1/resources/${team}/join`, { headers: byBearer });
  await call("leave, not a member", "POST", `/v1/resources/${album}/leave`, { headers: byBearer });
  await call("join, unknown", "POST", `/v1/resources/${UNKNOWN}/join`, { headers: byBearer });
  await call("join, cookie without CSRF", "POST", join, { headers: bob!.cookie });
  await call("join, unknown bearer", "POST", join, { headers: { authorization: "Bearer never-seen-token" } });
  await call("join, another app's origin", "POST", join, {
    headers: { ...bob!.bearer, origin: OTHER_ORIGIN },
  });
  await call("join, a query string", "POST", `${join}?x=1`, { headers: bob!.bearer });
  await call("join, a trailing slash", "POST", `${join}/`, { headers: bob!.bearer });
  await call("join, an encoded slash", "POST", `/v1/resources/${encodeURIComponent(`${album}/`)}join`, {
    headers: bob!.bearer,
  });
  await call("join, browse's name", "POST", "/v1/resources/browse/join", { headers: bob!.bearer });
  await call("setRole, no body", "POST", `/v1/resources/${album}/setRole`, { headers: bob!.bearer });
  await call("join, a body", "POST", join, { headers: { ...bob!.bearer, ...CSRF }, body: "{}" });
  await call("join, malformed JSON", "POST", join, { headers: { ...bob!.bearer, ...CSRF }, body: "{" });
  await call("join, PUT", "PUT", join, { headers: bob!.bearer });
  await call("leave after the refusals", "POST", `/v1/resources/${album}/leave`, { headers: byBearer });

  // The membership transitions with a body.
  const act = (label: string, path: string, headers: Record<string, string>, body?: unknown) =>
    call(label, "POST", `/v1/resources/${team}/${path}`, { headers: { ...headers, ...CSRF }, body });
  await act("invite carol", "invite", alice!.bearer, { userId: "carol" });
  await act("invite carol again", "invite", alice!.bearer, { userId: "carol" });
  await act("invite, a bad role", "invite", alice!.bearer, { userId: "dave", role: "king" });
  await act("invite, owner role", "invite", alice!.bearer, { userId: "dave", role: "owner" });
  await act("invite, by a non-member", "invite", bob!.bearer, { userId: "dave" });
  await call("list invited, carol", "GET", "/v1/resources?state=invited", { headers: carol!.bearer });
  await call("invited resource, carol", "GET", `/v1/resources/${team}`, { headers: carol!.bearer });
  await act("accept, carol", "accept", carol!.cookie);
  await act("accept again, carol", "accept", carol!.cookie);
  await act("request, bob", "request", bob!.bearer, {});
  await act("accept bob's request", "accept", alice!.bearer, { userId: "bob" });
  await act("setRole carol admin", "setRole", alice!.bearer, { userId: "carol", role: "admin" });
  await act("setRole, by carol on alice", "setRole", carol!.bearer, { userId: "alice", role: "reader" });
  await act("setRole, missing role", "setRole", alice!.bearer, { userId: "carol" });
  await act("remove bob", "remove", carol!.bearer, { userId: "bob" });
  await act("remove bob again", "remove", carol!.bearer, { userId: "bob" });
  await act("leave, owner", "leave", alice!.bearer);
  await act("transfer to carol", "transferOwnership", alice!.bearer, { userId: "carol" });
  await act("decline, carol", "declineOwnership", carol!.bearer);
  await act("transfer to carol again", "transferOwnership", alice!.bearer, { userId: "carol" });
  await act("cancel the transfer", "cancelOwnership", alice!.bearer);
  await act("accept ownership, nothing offered", "acceptOwnership", carol!.bearer);
  await act("transfer to carol, third", "transferOwnership", alice!.bearer, { userId: "carol" });
  await act("accept ownership, carol", "acceptOwnership", carol!.bearer);
  await call("roster after the transfer", "GET", `/v1/resources/${team}/members`, { headers: carol!.bearer });
  await act("reject, nothing pending", "reject", bob!.bearer);
  await call("delete, not the owner", "DELETE", `/v1/resources/${team}`, { headers: write(alice!.bearer) });
  await call("delete, cookie without CSRF", "DELETE", `/v1/resources/${team}`, { headers: carol!.cookie });
  await call("delete, the owner", "DELETE", `/v1/resources/${team}`, { headers: write(carol!.cookie) });
  await call("delete, again", "DELETE", `/v1/resources/${team}`, { headers: write(carol!.cookie) });
  return { album };
}

/** The caller's own data and account: export, and deletion (needs a recent sign-in by cookie). */
export async function accountRoutes(door: Door, user: string) {
  const { call } = bound(door);
  const who = door.users[user]!;
  await call("export", "GET", "/v1/me/export", { headers: who.bearer });
  await call("export, none", "GET", "/v1/me/export");
  await call("delete me, by bearer", "DELETE", "/v1/me", { headers: { ...who.bearer, ...CSRF } });
  await call("delete me, no CSRF", "DELETE", "/v1/me", { headers: who.cookie });
  await call("delete me", "DELETE", "/v1/me", { headers: { ...who.cookie, ...CSRF } });
  await call("me after deletion, bearer", "GET", "/v1/me", { headers: who.bearer });
  await call("session after deletion", "GET", "/auth/session", { headers: who.cookie });
}
