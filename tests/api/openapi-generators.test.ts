/**
 * The OpenAPI documents work with the tools app developers feed them to. Both are fetched from a real
 * listener; openapi-typescript generates types from them, and a small program using those types with
 * the SDK's own (and the TUI's view of the admin answers) must type-check: the named views agree with
 * the SDK's both ways, the operations answer them, every `Error.code` is one the SDK knows. A document
 * that drifts from the SDK fails the check (shown on a tampered copy). Redocly's linter, with the
 * repository's redocly.yaml, finds no problem in either document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/server/config.ts";
import { ERROR_CODES } from "../../src/server/http/errors.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv } from "../helpers/db.ts";
import type { OpenApiDocument } from "../helpers/openapi-check.ts";
import { openApiTypes } from "../helpers/openapi-typescript.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = join(import.meta.dir, "../..");
const TOKEN = "generators-admin-token";

let running: RunningGateway;
const docs = {} as { public: OpenApiDocument; admin: OpenApiDocument };

beforeAll(async () => {
  const config = loadConfig({
    ...(await databaseEnv(tempDir(), "gateway.db")),
    PORT: "0",
    ADMIN_PORT: "0",
    ADMIN_TOKEN: TOKEN,
    COOKIE_SECURE: "false",
  });
  running = await startGateway({ config, log: () => {} });
  docs.public = await (await fetch(`${running.publicUrl}/openapi.json`)).json();
  docs.admin = await (
    await fetch(`${running.adminUrl}/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json();
});
afterAll(() => running.stop());

describe("what generators read", () => {
  test("Error.code is the gateway's code list; every operation states its security; servers; license", () => {
    for (const doc of [docs.public, docs.admin]) {
      expect(doc.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
      expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
      expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    }
    const security = (path: string, method: string) => docs.public.paths[path][method].security;
    expect(security("/healthz", "get")).toEqual([]);
    expect(security("/auth/token", "post")).toEqual([{ csrfHeader: [] }]);
    expect(security("/auth/refresh", "post")).toEqual([{ sessionCookie: [], csrfHeader: [] }]);
    expect(security("/v1/resources/{id}", "get")).toEqual([{ sessionCookie: [] }, { bearerToken: [] }]);
    expect(security("/v1/resources/{id}", "delete")).toEqual([
      { sessionCookie: [], csrfHeader: [] },
      { bearerToken: [] },
    ]);
    expect(docs.admin.security).toEqual([{ adminToken: [] }]);
    expect(
      docs.public.paths["/v1/resources/browse"].get.responses["200"].content["application/json"],
    ).toEqual({
      schema: { $ref: "#/components/schemas/BrowseResults" },
    });
  });
});

/** A program that holds only if the generated types and the SDK's (and the TUI's) agree. */
const PROGRAM = `
import type { components as Public, paths } from "./public.ts";
import type { components as Admin } from "./admin.ts";
import type { ApiErrorCode, SessionEndReason } from "${ROOT}/packages/sdk/src/codes.gen.ts";
import type {
  BrowseItem, DeletionReport, MemberEntry, RequestedView, ResourceView, Session, UserExport,
} from "${ROOT}/packages/sdk/src/types.ts";
import type {
  AdminEvent, MemberRow, Membership, Overview, PendingRow, ResourceRow, SessionRow,
} from "${ROOT}/src/tui/client.ts";

type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fits<A, B> = [A] extends [B] ? true : false;
declare function holds<T extends true>(): void;
type S = Public["schemas"];
type A = Admin["schemas"];
type Answer<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { responses: { 200: { content: { "application/json": infer B } } } } ? B : never;

holds<Agree<S["ResourceView"], ResourceView>>();
holds<Agree<S["RequestedView"], RequestedView>>();
holds<Agree<S["BrowseItem"], BrowseItem>>();
holds<Agree<S["MemberEntry"], MemberEntry>>();
holds<Agree<S["DeletionReport"], DeletionReport>>();
holds<Agree<S["UserExport"], UserExport>>();
holds<Agree<A["DeletionReport"], DeletionReport>>();
holds<Agree<A["UserExport"], UserExport>>();
holds<Agree<Answer<"/v1/resources/{id}", "get">, ResourceView>>();
holds<Agree<Answer<"/v1/resources", "post">, ResourceView>>();
holds<Agree<Answer<"/v1/resources/browse", "get">["resources"][number], BrowseItem>>();
holds<Agree<Answer<"/v1/resources/{id}/members", "get">["members"][number], MemberEntry>>();
holds<Agree<Answer<"/v1/resources", "get">["resources"][number], ResourceView | RequestedView>>();
// The SDK's Session is the session report with \`user_id\` read as \`userId\`.
holds<Agree<Omit<S["SessionReport"], "user_id"> & { userId?: S["SessionReport"]["user_id"] }, Session>>();
holds<Agree<Answer<"/auth/session", "get">, S["SessionReport"]>>();
holds<Fits<S["Error"]["code"], ApiErrorCode>>();
holds<Agree<NonNullable<S["Error"]["reason"]>, SessionEndReason>>();
// The admin answers hold what the TUI reads.
holds<Fits<A["AdminOverview"], Overview>>();
holds<Fits<A["AdminSession"], SessionRow>>();
holds<Fits<A["PendingEntry"], PendingRow>>();
holds<Fits<A["AdminResource"], ResourceRow>>();
holds<Fits<A["Roster"]["members"][number], MemberRow>>();
holds<Fits<A["AuditEvent"], AdminEvent>>();
holds<Fits<A["AdminUser"]["memberships"][number], Membership>>();
`;

const TSCONFIG = {
  compilerOptions: {
    lib: ["ESNext", "DOM", "DOM.Iterable"],
    target: "ESNext",
    module: "Preserve",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
    types: [],
  },
  files: ["program.ts"],
};

/** Generates both documents' types into a new folder beside the program, and type-checks it. */
async function typeCheck(documents: typeof docs): Promise<{ exitCode: number; output: string }> {
  const dir = tempDir("sg-openapi-types-");
  await Bun.write(join(dir, "public.ts"), await openApiTypes(documents.public));
  await Bun.write(join(dir, "admin.ts"), await openApiTypes(documents.admin));
  await Bun.write(join(dir, "program.ts"), PROGRAM);
  await Bun.write(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  const run = Bun.spawnSync(["bun", "check", "--no-pretty", "-p", dir], { cwd: dir });
  return { exitCode: run.exitCode, output: `${run.stdout}${run.stderr}` };
}

/** The program's line that checks `text`, as the checker names it. */
const lineOf = (text: string) => `program.ts(${PROGRAM.split("\n").findIndex((l) => l.includes(text)) + 1},`;

describe("openapi-typescript", () => {
  test("the generated types agree with the SDK's and the TUI's", async () => {
    const { exitCode, output } = await typeCheck(docs);
    expect(output).toContain("No type errors");
    expect(exitCode).toBe(0);
  });

  test("a document that drifts from the SDK fails the check, on the view that drifted", async () => {
    const drifted = structuredClone(docs);
    const item = drifted.public.components.schemas.BrowseItem;
    item.properties.members = item.properties.memberCount;
    delete item.properties.memberCount;
    item.required = item.required.map((name: string) => (name === "memberCount" ? "members" : name));
    const { exitCode, output } = await typeCheck(drifted);
    expect(exitCode).not.toBe(0);
    expect(output).toContain(lineOf('holds<Agree<S["BrowseItem"], BrowseItem>>()'));
    expect(output).toContain(lineOf('holds<Agree<Answer<"/v1/resources/browse", "get">'));
  });
});

/** Redocly's report on one document (it prints one JSON report per file). */
async function lint(document: OpenApiDocument) {
  const dir = tempDir("sg-openapi-lint-");
  await Bun.write(join(dir, "openapi.json"), JSON.stringify(document));
  const cli = join(ROOT, "node_modules/.bin/redocly");
  const run = Bun.spawnSync(
    [cli, "lint", "openapi.json", "--config", join(ROOT, "redocly.yaml"), "--format=json"],
    { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } },
  );
  const report = JSON.parse(run.stdout.toString());
  return {
    exitCode: run.exitCode,
    totals: report.totals,
    problems: report.problems.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`),
  };
}

describe("redocly lint, with the repository's redocly.yaml", () => {
  for (const listener of ["public", "admin"] as const)
    test(`${listener}: no error and no warning`, async () => {
      const { exitCode, totals, problems } = await lint(docs[listener]);
      expect(problems).toEqual([]);
      expect(totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
      expect(exitCode).toBe(0);
    });

  test("a document without security on an operation fails it", async () => {
    const bare = structuredClone(docs.public);
    delete bare.paths["/v1/resources/{id}"].get.security;
    const { exitCode, problems } = await lint(bare);
    expect(problems).toEqual([expect.stringMatching(/^security-defined: /)]);
    expect(exitCode).not.toBe(0);
  });
});
