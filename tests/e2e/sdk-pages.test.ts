/**
 * The documented page examples in Chromium (README.md and docs/sdk.md): examples/sdk/browser.ts (the
 * browser client, plain DOM) and examples/sdk/react.tsx (the React bindings, under StrictMode), bundled as they are with their two
 * settings pointed at a real gateway and the development provider. Each signs in through the
 * provider's login page and the gateway's consent page, shows the user, calls the API, hears an
 * operator's revoke as a signed-out state with the reason, and signs out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser, startPageStack } from "../helpers/demo-stack.ts";
import { REPO } from "../helpers/sdk-tarball.ts";
import { freePort } from "../helpers/stack.ts";

const CLIENT_ID = "examples-web";
const pagesPort = freePort();
const pagesUrl = `http://127.0.0.1:${pagesPort}`;
/** The same pages from an origin the apps file does not register. */
const strayPort = freePort();
const strayUrl = `http://127.0.0.1:${strayPort}`;
const redirectUris = [`${pagesUrl}/`, `${pagesUrl}/react`];
const examples = join(REPO, "examples/sdk");

/** The examples as a bundler sees them, with their GATEWAY_URL and CLIENT_ID set for this test. */
async function bundleExamples(gatewayUrl: string): Promise<Map<string, string>> {
  const built = await Bun.build({
    entrypoints: [join(examples, "browser.ts"), join(examples, "react.tsx")],
    target: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [
      {
        name: "example-settings",
        setup(build) {
          build.onLoad({ filter: /examples\/sdk\/(browser|react)\.tsx?$/ }, async (args) => ({
            contents: (await Bun.file(args.path).text())
              .replace('"http://localhost:8787"', JSON.stringify(gatewayUrl))
              .replace('"local-3000"', JSON.stringify(CLIENT_ID)),
            loader: args.path.endsWith(".tsx") ? "tsx" : "ts",
          }));
        },
      },
    ],
  });
  if (!built.success) throw new AggregateError(built.logs, "the examples did not bundle");
  return new Map(
    await Promise.all(built.outputs.map(async (o) => [o.path.slice(2), await o.text()] as const)),
  );
}

async function pageOf(html: string, script: string): Promise<Response> {
  const text = (await Bun.file(join(examples, html)).text()).replace(/src="\.\/[\w.]+"/, `src="/${script}"`);
  return new Response(text, { headers: { "content-type": "text/html; charset=utf-8" } });
}

let stack: Awaited<ReturnType<typeof startPageStack>>;
let pages: ReturnType<typeof Bun.serve>;
let stray: ReturnType<typeof Bun.serve>;
let context: BrowserContext;

beforeAll(async () => {
  stack = await startPageStack({
    clientId: CLIENT_ID,
    clientName: "Examples",
    redirectUris,
    apps: () => ({
      apps: [{ id: "examples", clients: [{ clientId: CLIENT_ID, redirectUris }], types: { team: {} } }],
    }),
  });
  const bundles = await bundleExamples(stack.url);
  const routes = {
    "/": () => pageOf("browser.html", "browser.js"),
    "/react": () => pageOf("react.html", "react.js"),
    "/:script": (request: Bun.BunRequest<"/:script">) => {
      const code = bundles.get(request.params.script);
      return code
        ? new Response(code, { headers: { "content-type": "text/javascript" } })
        : new Response("not found", { status: 404 });
    },
  };
  pages = Bun.serve({ port: pagesPort, hostname: "127.0.0.1", routes });
  stray = Bun.serve({ port: strayPort, hostname: "127.0.0.1", routes });
  context = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await context?.close();
  await pages?.stop(true);
  await stray?.stop(true);
  await stack?.stop();
}, 30_000);

/** From the page's Sign in button, through the provider's login and the consent page, back to `path`. */
async function signInOn(page: Page, user: string, path: string) {
  await page.click("#sign-in");
  await page.waitForURL((url) => url.pathname === "/login");
  await page.fill("input[name=username]", user);
  await page.press("input[name=username]", "Enter");
  await page.waitForURL((url) => url.pathname === "/auth/consent" || url.origin === pagesUrl);
  if (new URL(page.url()).pathname === "/auth/consent") await page.click("#accept");
  await page.waitForURL((url) => url.origin === pagesUrl && url.pathname === path && url.search === "");
}

async function revokeSessionOf(user: string) {
  const live = await stack.running.gateway.store.listLive({}, 100);
  const mine = live.filter((row) => row.userId === user);
  expect(mine).toHaveLength(1);
  await stack.running.gateway.sessions.revoke(mine[0]!.id, "admin");
}

describe("the documented page examples in Chromium", () => {
  test("browser.ts: sign in, call the API, hear a revoke with its reason, sign out", async () => {
    const page = await context.newPage();
    await page.goto(`${pagesUrl}/`);
    await page.waitForSelector("#user:text-is('nobody')");
    await signInOn(page, "page-ada", "/");
    await page.waitForSelector("#user:text-is('page-ada')");
    await page.click("#teams");
    await page.waitForSelector("#notice:text-is('0 teams')");

    await revokeSessionOf("page-ada");
    await page.click("#teams");
    await page.waitForSelector("#notice:text-is('Your session was revoked: sign in again.')");
    expect(await page.textContent("#user")).toBe("nobody");

    await signInOn(page, "page-ada", "/");
    await page.waitForSelector("#user:text-is('page-ada')");
    await page.click("#sign-out");
    await page.waitForSelector("#user:text-is('nobody')");
    expect((await context.cookies(stack.url)).find((c) => c.name === "sg_session")).toBeUndefined();
    await page.close();
  }, 60_000);

  test("react.tsx: SignedOut, then SignedIn with useSession and useGateway; a revoke shows why; sign out", async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // A redirect back that this page did not start: signed out, with the callback's error in words.
    await page.goto(`${pagesUrl}/react?code=replayed&state=forged`);
    await page.waitForSelector("#notice:text-is('This sign-in did not start here.')");
    expect(new URL(page.url()).search).toBe("");
    await page.goto(`${pagesUrl}/react`);
    await page.waitForSelector("#sign-in");
    expect(await page.$("#user")).toBeNull();

    await signInOn(page, "page-grace", "/react");
    await page.waitForSelector("#user:text-is('page-grace')");
    expect(await page.$("#notice")).toBeNull();
    expect(await page.$("#sign-in")).toBeNull();
    await page.click("#load-teams");
    await page.waitForSelector("#teams:text-is('0 teams')");

    await revokeSessionOf("page-grace");
    await page.click("#load-teams");
    await page.waitForSelector("#notice:text-is('An operator ended your session.')");
    expect(await page.$("#user")).toBeNull();

    await signInOn(page, "page-grace", "/react");
    await page.waitForSelector("#user:text-is('page-grace')");
    await page.click("#sign-out");
    await page.waitForSelector("#sign-in");
    expect(await page.$("#notice")).toBeNull(); // signing out yourself is not news
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  test("from an unregistered origin: origin_not_allowed naming the origin and where to add it, not 'could not be reached'", async () => {
    const words = `does not accept calls from this page's origin, ${strayUrl}: add "${strayUrl}" to the "origins" of client "${CLIENT_ID}" in the apps file`;
    const page = await context.newPage();
    await page.goto(`${strayUrl}/`);
    await page.click("#teams");
    await page.waitForSelector(`#notice:has-text('${strayUrl}')`);
    expect(await page.textContent("#notice")).toContain(words);
    await page.goto(`${strayUrl}/react`);
    await page.waitForSelector(`#notice:has-text('${strayUrl}')`);
    expect(await page.textContent("#notice")).toContain(words);
    await page.close();
  }, 60_000);
});
