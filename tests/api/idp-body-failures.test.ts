/**
 * A provider that sends its headers and then stalls or drops the body is a provider failure like any
 * other: 502 idp_unavailable within the call's time bound, on every endpoint that calls the provider,
 * over real sockets (the gateway and a misbehaving provider on 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RunningGateway } from "../../src/server/serve.ts";
import {
  type Behaviour,
  discoveryOf,
  type FakeIdp,
  gatewayOnFake,
  FAKE_REDIRECT as REDIRECT,
  startFakeIdp,
} from "../helpers/fake-idp.ts";

const CSRF = { "content-type": "application/json", "x-service-csrf": "1" };
const TIMEOUT_MS = 300;
const CONSENT = {
  challenge: "ch-1",
  subject: "alice",
  skip: false,
  requested_scope: ["openid"],
  requested_access_token_audience: [],
  client: { client_id: "web" },
};

let fake: FakeIdp;
/** How a broken endpoint misbehaves, and which paths are broken now. */
let failure: Behaviour = { kind: "stall" };
let broken = new Set<string>();

function behave(method: string, path: string): Behaviour {
  if (broken.has(path)) return failure;
  if (path === "/.well-known/openid-configuration") return { kind: "json", body: discoveryOf(fake.url) };
  if (path === "/admin/oauth2/auth/requests/consent" && method === "GET")
    return { kind: "json", body: CONSENT };
  return { kind: "json", status: 404, body: { error: "not_found" } };
}

function gatewayOn(withAdminKey: boolean): Promise<RunningGateway> {
  // A refresh answers within its own wait (the provider call may go on in the background).
  return gatewayOnFake(fake, {
    adminKey: withAdminKey,
    config: { idpTimeoutMs: TIMEOUT_MS, refreshWaitMs: TIMEOUT_MS },
  });
}

let gw: RunningGateway;
let userinfoGw: RunningGateway;

beforeAll(async () => {
  fake = await startFakeIdp(behave);
  gw = await gatewayOn(true);
  userinfoGw = await gatewayOn(false);
}, 60_000);

afterAll(async () => {
  await gw.stop();
  await userinfoGw.stop();
  await fake.stop();
}, 30_000);

async function sessionCookie(): Promise<string> {
  const { sealed } = await gw.gateway.sessions.start(
    {
      accessToken: "at",
      refreshToken: `rt-${crypto.randomUUID()}`,
      idToken: undefined,
      expiresIn: 3600,
      scope: "openid",
    },
    "alice",
    "web",
  );
  return `${gw.gateway.sessions.cookieName}=${sealed}`;
}

/** A nonce cookie bound to the consent challenge (the page's first load), taken while the provider works. */
let bound: string | undefined;
async function boundConsentCookie(): Promise<string> {
  if (bound) return bound;
  const res = await fetch(`${gw.publicUrl}/auth/consent-request?challenge=${CONSENT.challenge}`);
  expect(res.status).toBe(200);
  bound = res.headers.getSetCookie()[0]!.split(";")[0]!;
  return bound;
}

type Call = { name: string; paths: string[]; run: () => Promise<Response>; json?: boolean };

function calls(): Call[] {
  const token = {
    code: "c",
    code_verifier: "v".repeat(43),
    redirect_uri: REDIRECT,
    client_id: "web",
  };
  return [
    {
      name: "POST /auth/token",
      paths: ["/oauth2/token"],
      run: () =>
        fetch(`${gw.publicUrl}/auth/token`, { method: "POST", headers: CSRF, body: JSON.stringify(token) }),
    },
    {
      name: "POST /auth/refresh",
      paths: ["/oauth2/token"],
      run: async () =>
        fetch(`${gw.publicUrl}/auth/refresh`, {
          method: "POST",
          headers: { ...CSRF, cookie: await sessionCookie() },
          body: "{}",
        }),
    },
    {
      name: "GET /auth/consent-request",
      paths: ["/admin/oauth2/auth/requests/consent"],
      run: () => fetch(`${gw.publicUrl}/auth/consent-request?challenge=${CONSENT.challenge}`),
    },
    {
      name: "GET /auth/consent (the page, as a browser asks for it)",
      paths: ["/admin/oauth2/auth/requests/consent"],
      json: false,
      run: () =>
        fetch(`${gw.publicUrl}/auth/consent?consent_challenge=${CONSENT.challenge}`, {
          headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
        }),
    },
    {
      name: "POST /auth/consent/accept",
      paths: ["/admin/oauth2/auth/requests/consent/accept"],
      run: async () =>
        fetch(`${gw.publicUrl}/auth/consent/accept`, {
          method: "POST",
          headers: { ...CSRF, cookie: await boundConsentCookie() },
          body: JSON.stringify({ challenge: CONSENT.challenge, subject: "alice", grant_scope: ["openid"] }),
        }),
    },
    {
      name: "POST /auth/consent/reject",
      paths: ["/admin/oauth2/auth/requests/consent/reject"],
      run: async () =>
        fetch(`${gw.publicUrl}/auth/consent/reject`, {
          method: "POST",
          headers: { ...CSRF, cookie: await boundConsentCookie() },
          body: JSON.stringify({ challenge: CONSENT.challenge }),
        }),
    },
    {
      name: "GET /v1/me with a bearer (introspection)",
      paths: ["/admin/oauth2/introspect"],
      run: () =>
        fetch(`${gw.publicUrl}/v1/me`, { headers: { authorization: `Bearer t-${crypto.randomUUID()}` } }),
    },
    {
      name: "GET /v1/me with a bearer (userinfo)",
      paths: ["/userinfo"],
      run: () =>
        fetch(`${userinfoGw.publicUrl}/v1/me`, {
          headers: { authorization: `Bearer t-${crypto.randomUUID()}` },
        }),
    },
    {
      name: "GET /auth/kratos/flow",
      paths: ["/self-service/login/flows"],
      run: () => fetch(`${gw.publicUrl}/auth/kratos/flow?type=login&id=abc`),
    },
  ];
}

for (const kind of ["stall", "truncate"] as const) {
  describe(`a provider that sends headers and then ${kind === "stall" ? "stalls" : "resets mid-body"}`, () => {
    for (const call of calls()) {
      test(`${call.name} answers 502 idp_unavailable within the time bound`, async () => {
        failure = { kind };
        broken = new Set();
        const started = performance.now();
        broken = new Set(call.paths);
        // The bound-consent calls bind first, with the provider working, then break.
        const res = await call.run();
        const elapsed = performance.now() - started;
        broken = new Set();
        expect(res.status).toBe(502);
        if (call.json !== false) expect(await res.json()).toMatchObject({ code: "idp_unavailable" });
        else expect(await res.text()).toContain("<html");
        expect(res.headers.getSetCookie().filter((c) => c.startsWith("sg_session"))).toEqual([]);
        expect(elapsed).toBeLessThan(TIMEOUT_MS * 2 + 1500);
      }, 10_000);
    }
  });
}
