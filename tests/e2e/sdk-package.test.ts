/**
 * The SDK as an app developer installs it: `npm pack` makes the tarball, npm installs it into a fresh
 * project, plain Node runs a script against a live `gateway dev` with tokens from `gateway token`, and
 * tsc checks the project with `lib: ["ES2022"]` (no DOM): a server client's `signIn()` must not compile.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installSdk, packSdk, REPO as root, run } from "../helpers/sdk-tarball.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const main = join(root, "src/server/main.ts");
const tsc = join(root, "node_modules/.bin/tsc");
const project = tempDir("sg-sdk-project-");
const port = freePort();
const gatewayUrl = `http://127.0.0.1:${port}`;
const devEnv = {
  PATH: process.env.PATH ?? "",
  PORT: String(port),
  ADMIN_PORT: String(freePort()),
  DEV_IDP_PORT: String(freePort()),
  DEMO_PORT: String(freePort()),
};
let dev: ReturnType<typeof Bun.spawn>;
let tarball = "";

beforeAll(async () => {
  dev = Bun.spawn(["bun", main, "dev"], {
    cwd: tempDir("sg-sdk-dev-"),
    env: devEnv,
    stdout: "ignore",
    stderr: "pipe",
  });
  // Build and pack (npm pack's prepack builds) while gateway dev starts.
  tarball = packSdk(project);
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${gatewayUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await Bun.sleep(50);
  }
  throw new Error("gateway dev never became ready");
}, 60_000);
afterAll(() => {
  dev?.kill();
  rmSync(project, { recursive: true, force: true });
});

/** An access token of `user` from `gateway token` against the running `gateway dev`. */
function token(user: string): string {
  const issued = run(["bun", main, "token", user], root, devEnv);
  expect(issued.code).toBe(0);
  return issued.out.trim();
}

test("the tarball is small and holds JavaScript and declarations only", () => {
  const size = statSync(tarball).size;
  console.log(`sdk tarball: ${tarball.split("/").at(-1)} ${(size / 1024).toFixed(1)} KB`);
  // 16.0 KB with the origin probe, 17.2 KB with the own-sessions methods and sign-out everywhere.
  expect(size).toBeLessThan(18 * 1024);
  const listing = run(["tar", "-tzf", tarball], project).out.trim().split("\n").sort();
  expect(listing).toContain("package/dist/index.js");
  expect(listing).toContain("package/dist/index.d.ts");
  for (const file of listing)
    expect(file).toMatch(/^package\/(package\.json|README\.md|dist\/[\w.-]+\.(js|d\.ts))$/);
});

test("installed with npm into a fresh project, it runs under plain node against gateway dev", () => {
  installSdk(project, tarball);
  // No runtime dependency: the SDK is the only package installed.
  expect(readdirSync(join(project, "node_modules")).filter((name) => !name.startsWith("."))).toEqual([
    "@session-gateway",
  ]);
  writeFileSync(
    join(project, "script.mjs"),
    `import { createClient, GatewayError } from "@session-gateway/sdk";
const [gatewayUrl, aliceToken, bobToken, closedUrl] = process.argv.slice(2);
const alice = createClient({ gatewayUrl, accessToken: aliceToken });
const bob = createClient({ gatewayUrl, accessToken: bobToken });
const out = {};
out.session = await alice.auth.getSession();
const team = await alice.resource.create("team", { name: "Node team" });
out.invited = await alice.resource(team.id).members.invite("sdk-bob");
out.accepted = await bob.resource(team.id).members.accept();
out.members = (await alice.resource(team.id).members.list()).map((m) => m.userId + ":" + m.role + ":" + m.state).sort();
const album = await alice.resource.create("album", { name: "Node album " + Date.now(), visibility: "discoverable" });
out.browsed = (await bob.resource.browse({ type: "album", query: "Node album" })).resources.some((row) => row.id === album.id);
out.deleted = await alice.resource(album.id).delete();
try { await bob.resource(team.id).delete(); } catch (error) { out.refused = { isGatewayError: error instanceof GatewayError, status: error.status, code: error.code }; }
try { await createClient({ gatewayUrl: closedUrl, accessToken: "x" }).auth.getSession(); } catch (error) { out.network = { isGatewayError: error instanceof GatewayError, code: error.code }; }
console.log(JSON.stringify(out));
`,
  );
  const closedPort = freePort();
  const ran = run(
    [
      "node",
      "script.mjs",
      gatewayUrl,
      token("sdk-alice"),
      token("sdk-bob"),
      `http://127.0.0.1:${closedPort}`,
    ],
    project,
  );
  expect(ran.err).toBe("");
  expect(ran.code).toBe(0);
  expect(JSON.parse(ran.out)).toEqual({
    session: { authenticated: true, userId: "sdk-alice" },
    invited: { ok: true, state: "invited" },
    accepted: { ok: true, state: "active" },
    members: ["sdk-alice:owner:active", "sdk-bob:writer:active"],
    browsed: true,
    deleted: { ok: true },
    refused: { isGatewayError: true, status: 403, code: "forbidden" },
    network: { isGatewayError: true, code: "network_error" },
  });
}, 60_000);

test("the documented server example (examples/sdk/server.mjs) runs under plain node", () => {
  copyFileSync(join(root, "examples/sdk/server.mjs"), join(project, "server.mjs"));
  const ran = run(["node", "server.mjs", gatewayUrl, token("example-alice"), token("example-bob")], project);
  expect(ran.err).toBe("");
  expect(ran.code).toBe(0);
  expect(ran.out.trim().split("\n")).toEqual([
    "Red team: example-alice is owner (active)",
    "Red team: example-bob is writer (active)",
    "example-bob may not delete it: forbidden",
    "example-alice deleted Red team",
  ]);
}, 60_000);

test("tsc with lib ES2022 and no DOM type-checks a user of it; signIn() on a server client does not compile", () => {
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        lib: ["ES2022"],
        types: [],
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      include: ["*.ts"],
    }),
  );
  writeFileSync(
    join(project, "server.ts"),
    `import { createClient, GatewayError, type GatewayErrorCode, type ResourceView } from "@session-gateway/sdk";
const server = createClient({ gatewayUrl: "http://127.0.0.1:8787", accessToken: "token" });
export async function names(): Promise<string[]> {
  const mine: ResourceView[] = await server.resource.list({ type: "team" });
  return mine.map((resource) => resource.name);
}
export function codeOf(error: unknown): GatewayErrorCode | undefined {
  return error instanceof GatewayError ? error.code : undefined;
}
// @ts-expect-error: a server client has no signIn()
server.auth.signIn();
// @ts-expect-error: a client is a browser client or a server client, never both
createClient({ gatewayUrl: "http://127.0.0.1:8787", clientId: "web", accessToken: "token" });
// @ts-expect-error: codes are a union of the documented ones
const typo: GatewayErrorCode = "not_pubic";
`,
  );
  const checked = run([tsc, "-p", "tsconfig.json"], project);
  expect(checked.out + checked.err).toBe("");
  expect(checked.code).toBe(0);
  // Without the expectation, the same call is a compile error.
  writeFileSync(
    join(project, "wrong.ts"),
    `import { createClient } from "@session-gateway/sdk";
createClient({ gatewayUrl: "http://127.0.0.1:8787", accessToken: "token" }).auth.signIn();
`,
  );
  const wrong = run([tsc, "-p", "tsconfig.json"], project);
  expect(wrong.code).not.toBe(0);
  expect(wrong.out).toContain("wrong.ts");
  expect(wrong.out).toContain("'signIn' does not exist");
  rmSync(join(project, "wrong.ts"));
});
