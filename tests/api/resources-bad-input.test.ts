/**
 * Bad input on every /v1/resources endpoint: malformed JSON, wrong types, nulls, arrays, unknown ids,
 * 100 KiB bodies, 10,000-character strings, control characters. Always a 4xx `{error, code}`, never
 * a 5xx, and `resources`, `members` and `events` unchanged (row counts and a checksum).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, makeKit, type Reply, TEST_APPS } from "../helpers/resources-kit.ts";

const k = await makeKit(TEST_APPS);
afterAll(() => k.gw.gateway.close());

const OWNER = "bi-o";
let team = "";
let board = "";
const big = (n: number) => "x".repeat(n);
const CONTROLS = ["\u0000", "\u0001", "\n", "\t", "\r", "\u001b", "\u007f", "\u0085", "\u009b"];

beforeAll(async () => {
  team = (await k.create(OWNER, "team", "bad input team")).id;
  board = (await k.create(OWNER, "board", "bad input board")).id;
  await k.addMember(OWNER, team, "bi-w", "writer");
  await k.post(OWNER, `/v1/resources/${team}/invite`, { userId: "bi-inv" });
  await k.post("bi-ask", `/v1/resources/${team}/request`);
  await k.users("bi-x");
}, 60_000);

/** Asserts a 4xx with exactly `{error, code}` (and the code when given). */
function expect4xx(reply: Reply, code?: string, status?: number): void {
  expect(reply.status).toBeGreaterThanOrEqual(400);
  expect(reply.status).toBeLessThan(500);
  if (status !== undefined || code !== undefined)
    expectError(reply, status ?? reply.status, code ?? reply.body?.code);
  else expectError(reply, reply.status, reply.body?.code);
}

/** Runs `fn` and asserts the three tables did not change. */
async function unchanged(fn: () => Promise<void>): Promise<void> {
  const before = await k.snapshot();
  await fn();
  expect(await k.snapshot()).toEqual(before);
}

const raw = (user: string, method: string, path: string, rawBody: string, headers?: Record<string, string>) =>
  k.call(user, method, path, undefined, { rawBody, headers });

/** Every body-taking endpoint with the path to call it on, as the owner of `team`. */
const bodyEndpoints = () => [
  { name: "create", path: "/v1/resources", user: OWNER },
  { name: "invite", path: `/v1/resources/${team}/invite`, user: OWNER },
  { name: "request", path: `/v1/resources/${team}/request`, user: "bi-x" },
  { name: "accept", path: `/v1/resources/${team}/accept`, user: OWNER },
  { name: "reject", path: `/v1/resources/${team}/reject`, user: OWNER },
  { name: "setRole", path: `/v1/resources/${team}/setRole`, user: OWNER },
  { name: "remove", path: `/v1/resources/${team}/remove`, user: OWNER },
];

describe("malformed JSON and oversized bodies", () => {
  test.each(["{", '{"type":', "{'type':'team'}", "nul", "[1,", '{"userId":"bi-w"', "\u0000", "{}}"])(
    "malformed JSON %p on every body endpoint: 400 invalid_json",
    async (body) => {
      await unchanged(async () => {
        for (const e of bodyEndpoints()) {
          const reply = await raw(e.user, "POST", e.path, body);
          expectError(reply, 400, "invalid_json");
        }
      });
    },
  );

  test("malformed JSON on join and leave (bodiless POSTs) is refused, not acted on", async () => {
    await unchanged(async () => {
      expect4xx(await raw("bi-x", "POST", `/v1/resources/${board}/join`, "{"), "invalid_json", 400);
      expect4xx(await raw("bi-w", "POST", `/v1/resources/${team}/leave`, "{"), "invalid_json", 400);
    });
  });

  test("a 100 KiB body is 413 payload_too_large on every POST and on DELETE", async () => {
    const payload = JSON.stringify({ type: "team", name: big(100 * 1024), userId: "bi-w", role: "reader" });
    await unchanged(async () => {
      for (const e of bodyEndpoints())
        expectError(await raw(e.user, "POST", e.path, payload), 413, "payload_too_large");
      expectError(
        await raw("bi-x", "POST", `/v1/resources/${board}/join`, payload),
        413,
        "payload_too_large",
      );
      expectError(
        await raw("bi-w", "POST", `/v1/resources/${team}/leave`, payload),
        413,
        "payload_too_large",
      );
      expectError(await raw(OWNER, "DELETE", `/v1/resources/${board}`, payload), 413, "payload_too_large");
    });
  });

  test("a body just over 64 KiB is 413; one just under is judged on its content", async () => {
    await unchanged(async () => {
      const over = JSON.stringify({ type: "team", name: big(64 * 1024) });
      expectError(await raw(OWNER, "POST", "/v1/resources", over), 413, "payload_too_large");
      const under = JSON.stringify({ type: "team", name: big(60 * 1024) });
      expectError(await raw(OWNER, "POST", "/v1/resources", under), 400, "invalid_request");
    });
  });
});

describe("body size is counted in bytes", () => {
  test("a body of 80,000 UTF-8 bytes (40,000 two-byte characters) is 413, though under 64 Ki characters", async () => {
    await unchanged(async () => {
      const body = JSON.stringify({ type: "team", name: "\u00e9".repeat(40_000) });
      expect(Buffer.byteLength(body)).toBeGreaterThan(64 * 1024);
      expect(body.length).toBeLessThan(64 * 1024);
      expectError(await raw(OWNER, "POST", "/v1/resources", body), 413, "payload_too_large");
    });
  });
});

describe("POST /v1/resources: wrong types and bad names", () => {
  const cases: Array<[string, unknown]> = [
    ["type number", { type: 1, name: "x" }],
    ["type array", { type: ["team"], name: "x" }],
    ["type null", { type: null, name: "x" }],
    ["type missing", { name: "x" }],
    ["type empty", { type: "", name: "x" }],
    ["type 10,000 chars", { type: big(10_000), name: "x" }],
    ["type with NUL", { type: "te\u0000am", name: "x" }],
    ["name number", { type: "team", name: 42 }],
    ["name null", { type: "team", name: null }],
    ["name array", { type: "team", name: ["x"] }],
    ["name object", { type: "team", name: { a: 1 } }],
    ["name missing", { type: "team" }],
    ["name empty", { type: "team", name: "" }],
    ["name blank", { type: "team", name: "   \t  " }],
    ["name 201 chars", { type: "team", name: big(201) }],
    ["name 10,000 chars", { type: "team", name: big(10_000) }],
    ["visibility public", { type: "team", name: "x", visibility: "public" }],
    ["visibility null", { type: "team", name: "x", visibility: null }],
    ["visibility boolean", { type: "team", name: "x", visibility: true }],
    ["body array", [{ type: "team", name: "x" }]],
    ["body string", "team"],
    ["body number", 7],
    ["body null", null],
    ["body empty object", {}],
  ];
  test.each(cases)("%s: 400 invalid_request naming the field", async (label, body) => {
    await unchanged(async () => {
      const reply = await k.post(OWNER, "/v1/resources", body);
      expectError(reply, 400, "invalid_request");
      const field = /^(type|name|visibility)/.exec(label)?.[1];
      if (field) expect(reply.body.error).toContain(field);
    });
  });

  test.each(CONTROLS.map((c) => [`U+${c.codePointAt(0)!.toString(16).padStart(4, "0")}`, c]))(
    "a name containing control character %s: 400",
    async (_l, c) => {
      await unchanged(async () => {
        const reply = await k.post(OWNER, "/v1/resources", { type: "team", name: `bad${c}name` });
        expectError(reply, 400, "invalid_request");
        expect(reply.body.error).toContain("name");
      });
    },
  );

  test("a JSON body sent as text/plain is not taken as JSON", async () => {
    await unchanged(async () => {
      expect4xx(
        await raw(OWNER, "POST", "/v1/resources", '{"type":"team","name":"x"}', {
          "content-type": "text/plain",
        }),
      );
    });
  });
});

describe("content type", () => {
  test("seed: endpoints are all JSON; a form-urlencoded body is refused (4xx), nothing created", async () => {
    await unchanged(async () => {
      expect4xx(
        await raw(OWNER, "POST", "/v1/resources", "type=team&name=formed", {
          "content-type": "application/x-www-form-urlencoded",
        }),
      );
    });
  });
});

describe("userId and role bodies", () => {
  const userIdEndpoints = (id = team) => [
    { path: `/v1/resources/${id}/invite`, extra: {} },
    { path: `/v1/resources/${id}/accept`, extra: {} },
    { path: `/v1/resources/${id}/reject`, extra: {} },
    { path: `/v1/resources/${id}/setRole`, extra: { role: "reader" } },
    { path: `/v1/resources/${id}/remove`, extra: {} },
  ];
  const badUserIds: Array<[string, unknown]> = [
    ["number", 5],
    ["null", null],
    ["array", ["bi-w"]],
    ["object", { id: "bi-w" }],
    ["boolean", true],
    ["empty", ""],
    ["10,000 chars", big(10_000)],
  ];
  test.each(badUserIds)(
    "userId %s: 400 invalid_request on invite, accept, reject, setRole, remove",
    async (_l, userId) => {
      await unchanged(async () => {
        for (const e of userIdEndpoints()) {
          const reply = await k.post(OWNER, e.path, { ...e.extra, userId });
          expectError(reply, 400, "invalid_request");
          expect(reply.body.error).toContain("userId");
        }
      });
    },
  );

  test.each(CONTROLS.map((c) => [`U+${c.codePointAt(0)!.toString(16).padStart(4, "0")}`, c]))(
    "userId with control character %s: 400 on invite, accept, reject, setRole, remove",
    async (_l, c) => {
      // A fresh resource per case: an id wrongly accepted must not leak state into other tests.
      const own = (await k.create(OWNER, "team", `control ${_l}`)).id;
      await unchanged(async () => {
        for (const e of userIdEndpoints(own)) {
          const reply = await k.post(OWNER, e.path, { ...e.extra, userId: `bi${c}w` });
          expectError(reply, 400, "invalid_request");
        }
      });
    },
  );

  test("missing userId on invite, setRole and remove: 400 invalid_request", async () => {
    await unchanged(async () => {
      for (const path of ["invite", "setRole", "remove"]) {
        const reply = await k.post(OWNER, `/v1/resources/${team}/${path}`, { role: "reader" });
        expectError(reply, 400, "invalid_request");
        expect(reply.body.error).toContain("userId");
      }
      for (const path of ["invite", "setRole", "remove"])
        expectError(await k.post(OWNER, `/v1/resources/${team}/${path}`), 400, "invalid_request");
    });
  });

  test.each([
    ["number", 1],
    ["null", null],
    ["array", ["admin"]],
    ["empty", ""],
    ["10,000 chars", big(10_000)],
  ] as Array<[string, unknown]>)("role %s on invite, request, setRole: 400", async (_l, role) => {
    await unchanged(async () => {
      for (const [user, path, body] of [
        [OWNER, "invite", { userId: "bi-new", role }],
        ["bi-x", "request", { role }],
        [OWNER, "setRole", { userId: "bi-w", role }],
      ] as const) {
        const reply = await k.post(user, `/v1/resources/${team}/${path}`, body);
        expect4xx(reply, undefined, 400);
        expect(["invalid_request", "invalid_role"]).toContain(reply.body.code);
      }
    });
  });

  test("setRole without a role: 400 invalid_request naming role", async () => {
    await unchanged(async () => {
      const reply = await k.post(OWNER, `/v1/resources/${team}/setRole`, { userId: "bi-w" });
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain("role");
    });
  });

  test.each(["[]", '["bi-x"]', '"x"', "3", "true"])(
    "body %s (not an object) on request, accept, reject: 400",
    async (body) => {
      // A fresh resource per case: a body wrongly accepted must not leak state into other tests.
      const own = (await k.create("bo-o", "team", `scalar body ${body}`)).id;
      await k.post("bo-o", `/v1/resources/${own}/invite`, { userId: "bo-inv" });
      await k.users("bo-ask");
      await unchanged(async () => {
        expect4xx(await raw("bo-ask", "POST", `/v1/resources/${own}/request`, body), "invalid_request", 400);
        expect4xx(await raw("bo-inv", "POST", `/v1/resources/${own}/accept`, body), "invalid_request", 400);
        expect4xx(await raw("bo-inv", "POST", `/v1/resources/${own}/reject`, body), "invalid_request", 400);
      });
    },
  );
});

describe("unknown and malformed ids on every :id endpoint", () => {
  const ids = [
    Bun.randomUUIDv7(),
    "not-a-uuid",
    big(10_000),
    "%00",
    "a%0Ab",
    "%E2%80%AE",
    "..%2F..%2Fetc",
    "' OR 1=1 --",
    "%25",
  ];
  const routes: Array<[string, string, unknown]> = [
    ["GET", "", undefined],
    ["DELETE", "", undefined],
    ["GET", "/members", undefined],
    ["POST", "/invite", { userId: "bi-new" }],
    ["POST", "/request", {}],
    ["POST", "/accept", {}],
    ["POST", "/reject", {}],
    ["POST", "/join", undefined],
    ["POST", "/leave", undefined],
    ["POST", "/setRole", { userId: "bi-w", role: "reader" }],
    ["POST", "/remove", { userId: "bi-w" }],
  ];
  test.each(ids.map((id) => [id.length > 40 ? `${id.slice(0, 10)}… (${id.length} chars)` : id, id]))(
    "id %s: 404 (or 400) with {error, code}, never 5xx",
    async (_l, id) => {
      await unchanged(async () => {
        for (const [method, suffix, body] of routes) {
          const reply = await k.call(
            OWNER,
            method,
            `/v1/resources/${id.replaceAll("'", "%27").replaceAll(" ", "%20")}${suffix}`,
            body,
          );
          expect4xx(reply);
          expect([400, 404]).toContain(reply.status);
        }
      });
    },
  );
});

describe("query strings of the GET endpoints", () => {
  test("GET /v1/resources: bad state or type is 400 naming the field", async () => {
    for (const [q, field] of [
      ["state=pending", "state"],
      ["state=ACTIVE", "state"],
      ["state=", "state"],
      [`type=${big(10_000)}`, "type"],
      ["type=a%00b", "type"],
      ["type=a%1Fb", "type"],
    ]) {
      const reply = await k.get(OWNER, `/v1/resources?${q}`);
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error).toContain(field);
    }
  });

  test("GET /v1/resources/static: missing, empty, huge or control-character type/slug is 400", async () => {
    for (const q of [
      "",
      "type=feed",
      "slug=global",
      "type=&slug=global",
      "type=feed&slug=",
      `type=feed&slug=${big(10_000)}`,
      "type=fe%00ed&slug=global",
    ])
      expectError(await k.get(OWNER, `/v1/resources/static?${q}`), 400, "invalid_request");
    for (const q of ["type=feed&slug=gl%00obal", "type=feed&slug=..%2Fglobal", "type=_app&slug=global"]) {
      const reply = await k.get(OWNER, `/v1/resources/static?${q}`);
      expect4xx(reply);
    }
  });
});
