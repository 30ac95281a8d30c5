/** Every SDK method against the in-process app (`fetch` replaced by `app.handle`), in browser mode. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  createClient,
  createServerClient,
  GatewayError,
  type GatewayErrorCode,
} from "../../packages/sdk/src/index.ts";
import { type InProcess, inProcess, sessionFor } from "../helpers/in-process.ts";

const GATEWAY = "http://gateway.test";
let gw: InProcess;
const cookies: Record<string, string> = {};
const sent: Array<{
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  credentials?: string;
}> = [];

beforeAll(async () => {
  gw = await inProcess(
    {},
    {
      apps: [
        {
          id: "default",
          clients: [],
          types: { team: {}, album: { visibility: "discoverable" } },
          statics: [{ type: "feed", slug: "global", name: "Global feed", visibility: "discoverable" }],
        },
      ],
    },
  );
  for (const user of ["alice", "bob", "carol"]) cookies[user] = (await sessionFor(gw, user, "web")).cookie!;
}, 60_000);

/** A browser client for `user`: the cookie jar is simulated by adding the user's cookie to each call. */
function clientFor(user: string | null) {
  return createClient({
    gatewayUrl: GATEWAY,
    clientId: "web",
    redirectUri: "http://app.test/callback",
    fetch: async (url, init) => {
      const target = new URL(String(url));
      const headers = { ...(init.headers as Record<string, string>) };
      sent.push({
        method: init.method ?? "GET",
        path: target.pathname + target.search,
        headers,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
        credentials: init.credentials,
      });
      return gw.handle(target.pathname + target.search, {
        ...init,
        headers: user ? { ...headers, cookie: cookies[user]! } : headers,
      });
    },
  });
}

afterEach(() => {
  sent.length = 0;
});

describe("auth", () => {
  test("getSession reports the user; without a session it is signed out", async () => {
    expect(await clientFor("alice").auth.getSession()).toEqual({ authenticated: true, userId: "alice" });
    expect(await clientFor(null).auth.getSession()).toEqual({ authenticated: false, reason: "no_session" });
    expect(sent.every((s) => s.credentials === "include")).toBe(true);
  });

  test("signOut posts /auth/logout with the CSRF header and ends the session", async () => {
    cookies.dave = (await sessionFor(gw, "dave")).cookie!;
    await clientFor("dave").auth.signOut();
    expect(sent.at(-1)).toMatchObject({
      method: "POST",
      path: "/auth/logout",
      headers: { "x-service-csrf": "1" },
      body: { client_id: "web" },
    });
    // The simulated jar still sends the cookie the gateway cleared: the session it names was signed out.
    expect(await clientFor("dave").auth.getSession()).toEqual({ authenticated: false, reason: "signed_out" });
  });

  describe("signIn and handleRedirectCallback (browser globals stubbed)", () => {
    const storage = new Map<string, string>();
    let assigned = "";
    let replaced = "";
    const names = ["sessionStorage", "location", "history"] as const;
    const originals = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    afterAll(() => {
      names.forEach((name, i) => {
        const original = originals[i];
        if (original) Object.defineProperty(globalThis, name, original);
        else delete (globalThis as Record<string, unknown>)[name];
      });
    });
    Object.assign(globalThis, {
      sessionStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => storage.set(k, v),
        removeItem: (k: string) => storage.delete(k),
      },
      location: {
        origin: "http://app.test",
        pathname: "/callback",
        href: "http://app.test/callback",
        assign: (url: string) => (assigned = url),
      },
      history: { state: null, replaceState: (_s: unknown, _t: string, url: string) => (replaced = url) },
    });

    test("signIn redirects to /auth/authorize with S256 PKCE and a state kept in sessionStorage", async () => {
      await clientFor(null).auth.signIn();
      const url = new URL(assigned);
      expect(url.origin + url.pathname).toBe(`${GATEWAY}/auth/authorize`);
      const q = Object.fromEntries(url.searchParams);
      expect(q).toMatchObject({
        response_type: "code",
        client_id: "web",
        redirect_uri: "http://app.test/callback",
        code_challenge_method: "S256",
        scope: "openid offline_access",
      });
      const saved = JSON.parse([...storage.values()][0]!);
      expect(saved.state).toBe(q.state);
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(saved.verifier)),
      );
      expect(q.code_challenge).toBe(Buffer.from(digest).toString("base64url"));
      expect(saved.verifier.length).toBeGreaterThanOrEqual(43);
    });

    test("the callback checks state, posts the code with the verifier, cleans the URL and the storage", async () => {
      const client = clientFor(null);
      await client.auth.signIn();
      const { state, verifier } = JSON.parse([...storage.values()][0]!);
      // No identity provider here, so the gateway answers 503: the request it got is what we check.
      const error = await client.auth
        .handleRedirectCallback(`http://app.test/callback?code=abc&state=${state}&iss=x&keep=1`)
        .catch((e) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 503, code: "issuer_not_configured" });
      expect(sent.at(-1)).toMatchObject({
        method: "POST",
        path: "/auth/token",
        headers: { "x-service-csrf": "1" },
        body: {
          code: "abc",
          code_verifier: verifier,
          redirect_uri: "http://app.test/callback",
          client_id: "web",
        },
      });
      expect(replaced).toBe("/callback?keep=1");
      expect(storage.size).toBe(0);
    });

    test("a state that did not start here, or an error from the provider, is refused without calling the gateway", async () => {
      const client = clientFor(null);
      await client.auth.signIn();
      await expect(
        client.auth.handleRedirectCallback("http://app.test/callback?code=abc&state=forged-state"),
      ).rejects.toMatchObject({ code: "state_mismatch" });
      await client.auth.signIn();
      await expect(
        client.auth.handleRedirectCallback("http://app.test/callback?error=access_denied&state=x"),
      ).rejects.toMatchObject({ code: "sign_in_refused", message: "Sign-in was refused (access_denied)." });
      expect(sent.some((s) => s.path === "/auth/token")).toBe(false);
    });
  });
});

describe("resource", () => {
  test("create, list, get, static, browse", async () => {
    const alice = clientFor("alice");
    const team = await alice.resource.create("team", { name: "Red team" });
    expect(team).toEqual({
      id: team.id,
      type: "team",
      name: "Red team",
      visibility: "members",
      discoverable: false,
    });
    const album = await alice.resource.create("album", { name: "Trip", visibility: "discoverable" });
    expect((await alice.resource.list({ type: "team" })).map((r) => r.id)).toEqual([team.id]);
    expect(await alice.resource.get(team.id)).toMatchObject({ id: team.id, memberCount: 1 });
    expect(await alice.resource(team.id).get()).toMatchObject({ id: team.id });
    expect(await alice.resource.static("feed", "global")).toMatchObject({
      type: "feed",
      name: "Global feed",
      memberCount: 0,
    });
    const page = await alice.resource.browse({ type: "album", query: "tri", limit: 1 });
    expect(page).toEqual({
      resources: [expect.objectContaining({ id: album.id, memberCount: 1 })],
      nextCursor: null,
    });
    expect(sent.filter((s) => s.method === "POST").every((s) => s.headers["x-service-csrf"] === "1")).toBe(
      true,
    );
    expect(
      sent.filter((s) => s.method === "GET").every((s) => s.headers["x-service-csrf"] === undefined),
    ).toBe(true);
  });

  test("members: invite, accept, setRole, list, request, accept a request, reject, join, leave, remove, delete", async () => {
    const alice = clientFor("alice");
    const bob = clientFor("bob");
    const carol = clientFor("carol");
    const team = await alice.resource.create("team", { name: "Blue" });
    const handle = alice.resource(team.id);
    expect(await handle.members.invite("bob", { role: "admin" })).toEqual({ ok: true, state: "invited" });
    expect((await bob.resource.list({ state: "invited" })).map((r) => r.id)).toEqual([team.id]);
    expect(await bob.resource(team.id).members.accept()).toEqual({ ok: true, state: "active" });
    expect(await handle.members.setRole("bob", "writer")).toEqual({ ok: true, role: "writer" });
    expect(await carol.resource(team.id).members.request()).toEqual({ ok: true, state: "requested" });
    expect(await handle.members.list()).toEqual([
      { userId: "alice", role: "owner", state: "active" },
      { userId: "bob", role: "writer", state: "active" },
      { userId: "carol", role: "writer", state: "requested" },
    ]);
    expect(await handle.members.reject("carol")).toEqual({ ok: true });
    await carol.resource(team.id).members.request({ role: "reader" });
    expect(await handle.members.accept("carol")).toEqual({ ok: true, state: "active" });
    expect(await carol.resource(team.id).members.leave()).toEqual({ ok: true });
    expect(await handle.members.remove("bob")).toEqual({ ok: true });
    const album = await alice.resource.create("album", { name: "Open" });
    expect(await bob.resource(album.id).members.join()).toEqual({ ok: true, state: "active", joined: true });
    await alice.resource(album.id).members.invite("carol");
    expect(await carol.resource(album.id).members.reject()).toEqual({ ok: true });
    expect(await handle.delete()).toEqual({ ok: true });
    await expect(alice.resource.get(team.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  test("ownership: transferOwnership, declineOwnership, cancelOwnership, acceptOwnership, and their refusals", async () => {
    const alice = clientFor("alice");
    const bob = clientFor("bob");
    const team = await alice.resource.create("team", { name: "Handover" });
    await alice.resource(team.id).members.invite("bob");
    await bob.resource(team.id).members.accept();
    sent.length = 0;
    expect(await alice.resource(team.id).transferOwnership("bob")).toEqual({
      ok: true,
      state: "offered",
      userId: "bob",
    });
    expect(await bob.resource(team.id).declineOwnership()).toEqual({ ok: true });
    await alice.resource(team.id).transferOwnership("bob");
    expect(await alice.resource(team.id).cancelOwnership()).toEqual({ ok: true });
    const refused = (await bob
      .resource(team.id)
      .acceptOwnership()
      .catch((e: unknown) => e)) as GatewayError;
    expect(refused).toBeInstanceOf(GatewayError);
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 404, code: "no_pending_offer" });
    await alice.resource(team.id).transferOwnership("bob");
    expect(await bob.resource(team.id).acceptOwnership()).toEqual({ ok: true, role: "owner" });
    expect(await bob.resource(team.id).members.list()).toEqual([
      { userId: "alice", role: "admin", state: "active" },
      { userId: "bob", role: "owner", state: "active" },
    ]);
    const notOwner = (await alice
      .resource(team.id)
      .transferOwnership("bob")
      .catch((e: unknown) => e)) as GatewayError;
    expect({ status: notOwner.status, code: notOwner.code }).toEqual({ status: 403, code: "forbidden" });
    expect(sent.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`)).toEqual([
      `POST /v1/resources/${team.id}/transferOwnership {"userId":"bob"}`,
      `POST /v1/resources/${team.id}/declineOwnership {}`,
      `POST /v1/resources/${team.id}/transferOwnership {"userId":"bob"}`,
      `POST /v1/resources/${team.id}/cancelOwnership {}`,
      `POST /v1/resources/${team.id}/acceptOwnership {}`,
      `POST /v1/resources/${team.id}/transferOwnership {"userId":"bob"}`,
      `POST /v1/resources/${team.id}/acceptOwnership {}`,
      `GET /v1/resources/${team.id}/members undefined`,
      `POST /v1/resources/${team.id}/transferOwnership {"userId":"bob"}`,
    ]);
  });

  test("auth.exportData: the signed-in user's export, no token in it", async () => {
    const carol = clientFor("carol");
    const team = await carol.resource.create("team", { name: "Carol's export" });
    sent.length = 0;
    const data = await carol.auth.exportData();
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(["GET /v1/me/export"]);
    expect(data.userId).toBe("carol");
    expect(data.resourcesOwned.map((r) => r.id)).toContain(team.id);
    expect(data.sessions.length).toBeGreaterThan(0);
    expect(JSON.stringify(data)).not.toMatch(/token|cookie/i);
    const refused = (await clientFor(null)
      .auth.exportData()
      .catch((e: unknown) => e)) as GatewayError;
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 401, code: "unauthenticated" });
  });

  test("refusals surface as one typed error with status and code", async () => {
    const bob = clientFor("bob");
    const team = await clientFor("alice").resource.create("team", { name: "Private" });
    const cases: Array<[() => Promise<unknown>, number, GatewayErrorCode]> = [
      [() => bob.resource(team.id).members.join(), 403, "not_public"],
      [() => bob.resource.create("nope", { name: "x" }), 404, "unknown_type"],
      [() => clientFor("alice").resource(team.id).members.leave(), 403, "owner_cannot_leave"],
      [
        () =>
          clientFor("alice")
            .resource(team.id)
            .members.invite("bob", { role: "owner" as never }),
        400,
        "invalid_role",
      ],
      [() => clientFor(null).resource.list(), 401, "unauthenticated"],
    ];
    for (const [call, status, code] of cases) {
      const error = (await call().catch((e: unknown) => e)) as GatewayError;
      expect(error).toBeInstanceOf(GatewayError);
      expect({ status: error.status, code: error.code }).toEqual({ status, code });
      expect(typeof error.message).toBe("string");
    }
  });
});

describe("failures without an answer are GatewayErrors too", () => {
  test("a closed port is network_error, a silent gateway is timeout", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const closedUrl = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const refused = await createClient({ gatewayUrl: closedUrl, accessToken: "t" })
      .resource.list()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ status: 0, code: "network_error" });
    const silent = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Promise<Response>(() => {}),
    });
    try {
      const late = await createClient({
        gatewayUrl: `http://127.0.0.1:${silent.port}`,
        accessToken: "t",
        timeoutMs: 200,
      })
        .resource.list()
        .catch((e: unknown) => e);
      expect(late).toBeInstanceOf(GatewayError);
      expect(late).toMatchObject({
        status: 0,
        code: "timeout",
        message: "The gateway did not answer within 200 ms.",
      });
    } finally {
      silent.stop(true);
    }
  });

  test("an answer that is not the gateway's {error, code} is http_error", async () => {
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response("<h1>Bad gateway</h1>", { status: 502 }),
    });
    try {
      const error = await createClient({ gatewayUrl: `http://127.0.0.1:${proxy.port}`, accessToken: "t" })
        .resource.list()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 502, code: "http_error", message: "The gateway answered 502." });
    } finally {
      proxy.stop(true);
    }
  });
});

describe("createServerClient: the gateway cookie of the incoming request, and only it", () => {
  /** The gateway behind a recording fetch: each call's Cookie header, and the user's cookie rotating once. */
  function recordingGateway(user: string) {
    const seen: Array<{
      path: string;
      cookie: string | undefined;
      csrf: string | undefined;
      credentials?: string;
    }> = [];
    let rotated = false;
    const fetch = async (
      url: string,
      init: { headers: Record<string, string>; method: string; credentials?: string; body?: string },
    ) => {
      const path = new URL(url).pathname;
      seen.push({
        path,
        cookie: init.headers.cookie,
        csrf: init.headers["x-service-csrf"],
        credentials: init.credentials,
      });
      if (path === "/auth/refresh") {
        rotated = true;
        return new Response(JSON.stringify({ authenticated: true, user_id: user, expires_in: 60 }), {
          headers: [
            ["set-cookie", "sg_session=rotated; Max-Age=600; Path=/; HttpOnly; SameSite=Lax"],
            ["content-type", "application/json"],
          ],
        });
      }
      // The first call with the original cookie finds its access token expired.
      if (!rotated && path === "/v1/resources")
        return Response.json({ error: "expired", code: "unauthenticated" }, { status: 401 });
      return gw.handle(path, {
        method: init.method,
        body: init.body,
        headers: { ...init.headers, cookie: cookies[user]! },
      });
    };
    return { seen, fetch };
  }

  test("a Fetch Request: only sg_session is forwarded; a refresh's Set-Cookie is used and passed on", async () => {
    const { seen, fetch } = recordingGateway("alice");
    const request = new Request("http://app.test/page", {
      headers: { cookie: "theme=dark; sg_session=original; app_session=secret" },
    });
    const client = createServerClient({ gatewayUrl: GATEWAY, request, fetch });
    expect(await client.auth.getSession()).toEqual({ authenticated: true, userId: "alice" });
    expect(client.setCookies()).toEqual([]);
    await client.resource.list();
    await client.resource.create("team", { name: "From the app server" });
    expect(seen).toEqual([
      { path: "/auth/session", cookie: "sg_session=original", csrf: undefined, credentials: undefined },
      { path: "/v1/resources", cookie: "sg_session=original", csrf: undefined, credentials: undefined },
      { path: "/auth/refresh", cookie: "sg_session=original", csrf: "1", credentials: undefined },
      { path: "/v1/resources", cookie: "sg_session=rotated", csrf: undefined, credentials: undefined },
      { path: "/v1/resources", cookie: "sg_session=rotated", csrf: "1", credentials: undefined },
    ]);
    expect(client.setCookies()).toEqual(["sg_session=rotated; Max-Age=600; Path=/; HttpOnly; SameSite=Lax"]);
  });

  test("Node's IncomingMessage headers; no gateway cookie sends no Cookie header at all", async () => {
    const { seen, fetch } = recordingGateway("bob");
    const node = createServerClient({
      gatewayUrl: GATEWAY,
      request: { headers: { cookie: "__Host-sg_session=secure-one; other=1", host: "app.test" } },
      fetch,
    });
    await node.auth.getSession();
    expect(seen.at(-1)?.cookie).toBe("__Host-sg_session=secure-one");
    const bare = createServerClient({
      gatewayUrl: GATEWAY,
      request: { headers: { cookie: "theme=dark" } },
      fetch,
    });
    expect(await bare.auth.getSession()).toMatchObject({ authenticated: true }); // the fake gateway signs everyone in
    expect(seen.at(-1)?.cookie).toBeUndefined();
  });

  test("a cleared cookie is dropped from later calls and its clearing passed on", async () => {
    const sent: Array<string | undefined> = [];
    const client = createServerClient({
      gatewayUrl: GATEWAY,
      request: new Request("http://app.test/", { headers: { cookie: "sg_session=dead" } }),
      fetch: async (url, init) => {
        sent.push(init.headers.cookie);
        return new URL(url).pathname === "/auth/refresh"
          ? new Response(
              JSON.stringify({
                error: "Your session was revoked: sign in again.",
                code: "unauthenticated",
                reason: "revoked",
              }),
              {
                status: 401,
                headers: { "set-cookie": "sg_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax" },
              },
            )
          : Response.json({ error: "no", code: "unauthenticated" }, { status: 401 });
      },
    });
    const error = await client.resource.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: "unauthenticated", reason: "revoked" });
    await client.resource.list().catch(() => {});
    expect(sent).toEqual(["sg_session=dead", "sg_session=dead", undefined, undefined]);
    expect(client.setCookies()).toEqual(["sg_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"]);
  });

  test("signIn and signOut are not on a request client", () => {
    const client = createServerClient({ gatewayUrl: GATEWAY, request: new Request("http://app.test/") });
    // @ts-expect-error a request client cannot sign in: that is the browser's redirect
    expect(client.auth.signIn).toBeUndefined();
  });
});
