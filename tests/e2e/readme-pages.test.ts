/**
 * The README's page examples work verbatim as an app developer's own app: the code blocks are taken
 * from README.md (the browser page) and docs/sdk.md (the React page) themselves (only the ports
 * change: a test cannot own 3000 and 8787), put in a fresh project with the packed SDK as the README's
 * commands say, served from their own origins (the browser one by Bun's dev server, `bun
 * ./index.html`; the React one built by `bun build` and served as static files), and signed in
 * through `gateway dev --app <origin>` running as a real process. Each page signs in through the
 * development provider, calls the API, and signs out; the banner prints the very `createClient`
 * settings the examples carry.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { gatewayCall } from "../helpers/demo-page.ts";
import { launchBrowser } from "../helpers/demo-stack.ts";
import { packSdk, REPO, run } from "../helpers/sdk-tarball.ts";
import { freePort, tempDir } from "../helpers/stack.ts";

const pages = await Promise.all(
  ["README.md", "docs/sdk.md"].map((file) => Bun.file(join(REPO, file)).text()),
);
const blocks = pages.flatMap((page) =>
  [...page.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code: code! })),
);

/** The one block of `lang` in those pages that contains `marker`. */
function block(lang: string, marker: string): string {
  const found = blocks.filter((b) => b.lang === lang && b.code.includes(marker));
  expect(found).toHaveLength(1);
  return found[0]!.code;
}

/** `text` with `from` (there exactly once) replaced by `to`. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from)).toHaveLength(2);
  return text.replace(from, to);
}

const port = freePort();
const gatewayUrl = `http://localhost:${port}`;
const examples = [
  { script: "browser.ts", port: freePort(), marker: "// A page signing people in" },
  { script: "react.tsx", port: freePort(), marker: "// React: the provider holds" },
].map((example) => ({ ...example, origin: `http://localhost:${example.port}` }));

/** The documented example for `example`, with the ports this test has in place of 8787 and 3000. */
function exampleSource(example: (typeof examples)[number]): string {
  const code = block(example.script.endsWith(".tsx") ? "tsx" : "ts", example.marker);
  return replaceOnce(
    replaceOnce(code, '"http://localhost:8787"', JSON.stringify(gatewayUrl)),
    '"local-3000"',
    JSON.stringify(`local-${example.port}`),
  );
}

const work = tempDir("sg-readme-pages-");
const children: Array<ReturnType<typeof Bun.spawn>> = [];
let staticServer: ReturnType<typeof Bun.serve> | undefined;
let context: BrowserContext;
let gateway: ReturnType<typeof Bun.spawn>;

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error(`${url} never answered`);
}

/** A project as the README's commands make it: npm init, the SDK's tarball, the page and its script. */
function makeProject(example: (typeof examples)[number], tarball: string): string {
  const project = join(work, example.script.split(".")[0]!);
  mkdirSync(project);
  for (const command of [
    ["npm", "init", "-y"],
    ["npm", "install", "--no-audit", "--no-fund", "--offline", tarball],
  ]) {
    const done = run(command, project);
    if (done.code !== 0) throw new Error(`${command.join(" ")}: ${done.err}`);
  }
  // `npm install react react-dom` from the registry, stood in for by the checkout's own copies (offline).
  if (example.script.endsWith(".tsx"))
    for (const name of ["react", "react-dom", "scheduler"])
      symlinkSync(join(REPO, "node_modules", name), join(project, "node_modules", name));
  writeFileSync(join(project, "index.html"), block("html", `src="./${example.script}"`));
  writeFileSync(join(project, example.script), exampleSource(example));
  return project;
}

beforeAll(async () => {
  const tarball = packSdk(work);
  const [browserExample, reactExample] = examples as [(typeof examples)[0], (typeof examples)[0]];

  // The browser example on Bun's dev server (`bun ./index.html`; 3000 unless told another port).
  const browserProject = makeProject(browserExample, tarball);
  children.push(
    Bun.spawn(["bun", `--port=${browserExample.port}`, "./index.html"], {
      cwd: browserProject,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" },
      stdout: "ignore",
      stderr: "ignore",
    }),
  );

  // The React example built by `bun build ./index.html --production --outdir dist`, served as files.
  const reactProject = makeProject(reactExample, tarball);
  const built = run(["bun", "build", "./index.html", "--production", "--outdir", "dist"], reactProject);
  if (built.code !== 0) throw new Error(`bun build: ${built.err}`);
  const dist = join(reactProject, "dist");
  staticServer = Bun.serve({
    hostname: "localhost",
    port: reactExample.port,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const file = Bun.file(join(dist, path === "/" ? "index.html" : path));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });

  // `bun run dev --app <origin>` for each page, as the README says, on free ports.
  gateway = Bun.spawn(
    ["bun", join(REPO, "src/server/main.ts"), "dev", ...examples.flatMap((e) => ["--app", e.origin])],
    {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        ADMIN_PORT: String(freePort()),
        DEV_IDP_PORT: String(freePort()),
        DEMO_PORT: String(freePort()),
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  children.push(gateway);
  await Promise.all([waitFor(`${gatewayUrl}/healthz`), ...examples.map((e) => waitFor(`${e.origin}/`))]);
  context = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await context?.close();
  await staticServer?.stop(true);
  for (const child of children) child.kill();
}, 30_000);

/** From the page's Sign in button, through the provider's login and the consent page, back to `origin`. */
async function signInOn(page: Page, origin: string, user: string) {
  await page.click("#sign-in");
  await page.waitForURL((url) => url.pathname === "/login");
  await page.fill("input[name=username]", user);
  await page.press("input[name=username]", "Enter");
  await page.waitForURL((url) => url.pathname === "/auth/consent" || url.origin === origin);
  if (new URL(page.url()).pathname === "/auth/consent") await page.click("#accept");
  await page.waitForURL((url) => url.origin === origin && url.pathname === "/" && url.search === "");
}

/** A team created from the page's origin with its user's cookie, not through the example's code. */
async function createTeam(page: Page, name: string) {
  const created = await gatewayCall(page, gatewayUrl, "POST", "/v1/resources", { type: "team", name });
  expect(created).toMatchObject({ status: 200, body: { type: "team", name } });
}

async function expectSignedOut(page: Page) {
  expect(await gatewayCall(page, gatewayUrl, "GET", "/auth/session")).toMatchObject({
    status: 200,
    body: { authenticated: false },
  });
  expect((await context.cookies(gatewayUrl)).find((c) => c.name === "sg_session")).toBeUndefined();
}

test("the README's browser example, on Bun's dev server at its own origin: sign in, call the API, sign out", async () => {
  const page = await context.newPage();
  await page.goto(`${examples[0]!.origin}/`);
  await page.waitForSelector("#user:text-is('nobody')");
  await signInOn(page, examples[0]!.origin, "readme-ada");
  await page.waitForSelector("#user:text-is('readme-ada')");
  await page.click("#teams");
  await page.waitForSelector("#notice:text-is('0 teams')");
  await createTeam(page, "Ada's team");
  await page.click("#teams");
  await page.waitForSelector("#notice:text-is('1 teams')");
  expect(await gatewayCall(page, gatewayUrl, "GET", "/v1/me")).toEqual({
    status: 200,
    body: {
      userId: "readme-ada",
      clientId: `local-${examples[0]!.port}`,
      appId: `local-${examples[0]!.port}`,
      via: "cookie",
    },
  });

  await page.click("#sign-out");
  await page.waitForSelector("#user:text-is('nobody')");
  await expectSignedOut(page);
  await page.close();
}, 30_000);

test("the documented React example, built by bun build and served from its own origin: sign in, call the API, sign out", async () => {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${examples[1]!.origin}/`);
  await page.waitForSelector("#sign-in");
  await signInOn(page, examples[1]!.origin, "readme-grace");
  await page.waitForSelector("#user:text-is('readme-grace')");
  await createTeam(page, "Grace's team");
  await page.click("#load-teams");
  await page.waitForSelector("#teams:text-is('1 teams')");
  const teams = await gatewayCall(page, gatewayUrl, "GET", "/v1/resources?type=team");
  expect(teams.status).toBe(200);
  expect(JSON.stringify(teams.body)).toContain("Grace's team");

  await page.click("#sign-out");
  await page.waitForSelector("#sign-in");
  expect(await page.$("#user")).toBeNull();
  await expectSignedOut(page);
  expect(errors).toEqual([]);
  await page.close();
}, 30_000);

test("gateway dev's banner prints the createClient settings the README's examples carry", async () => {
  gateway.kill();
  const banner = await new Response(gateway.stdout as ReadableStream).text();
  for (const example of examples)
    expect(banner).toContain(
      `createClient({ gatewayUrl: ${JSON.stringify(gatewayUrl)}, clientId: "local-${example.port}" })  (public)`,
    );
  // What the README's examples say, with the ports the banner printed in place of the test's.
  for (const example of examples) {
    const code = block(example.script.endsWith(".tsx") ? "tsx" : "ts", example.marker);
    expect(code).toContain('const GATEWAY_URL = "http://localhost:8787";');
    expect(code).toContain('const CLIENT_ID = "local-3000";');
  }
});
