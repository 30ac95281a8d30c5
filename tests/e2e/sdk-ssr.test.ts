/**
 * `createServerClient` behind a real app server: the examples of docs/sdk.md (examples/sdk/ssr-node.mjs
 * on plain node:http, examples/sdk/ssr-bun.ts on Bun.serve) run from a fresh project with the packed SDK
 * installed, in front of a real gateway whose access tokens live 2 s. The app server renders for the
 * user whose gateway cookie the browser sent; once the access token has expired it refreshes the
 * session and its response carries the rotated cookie; a revoked session renders as signed out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { installSdk, packSdk, REPO } from "../helpers/sdk-tarball.ts";
import { CSRF, freePort, type Stack, signIn, startStack, tempDir } from "../helpers/stack.ts";

const project = tempDir("sg-sdk-ssr-");
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ accessTokenTtlSeconds: 2 });
  installSdk(project, packSdk(project));
  for (const example of ["ssr-node.mjs", "ssr-bun.ts"])
    copyFileSync(join(REPO, "examples/sdk", example), join(project, example));
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(project, { recursive: true, force: true });
});

async function startAppServer(command: string[]) {
  const port = freePort();
  const child = Bun.spawn(command, {
    cwd: project,
    env: { PATH: process.env.PATH ?? "", GATEWAY_URL: stack.url, PORT: String(port) },
    stdout: "ignore",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return { url, stop: () => child.kill() };
    await Bun.sleep(25);
  }
  child.kill();
  throw new Error(`${command.join(" ")} never listened: ${await new Response(child.stderr).text()}`);
}

const sessionCookie = (setCookies: string[]) =>
  setCookies.find((line) => line.startsWith("sg_session="))?.split(";")[0];

describe.each([
  ["node:http", ["node", "ssr-node.mjs"]],
  ["Bun.serve", ["bun", "ssr-bun.ts"]],
])("the SSR example on %s", (name, command) => {
  test("renders for the cookie's user, passes a refreshed cookie back, and a revoke signs out", async () => {
    const app = await startAppServer(command);
    try {
      const user = `ssr-${name.replace(/\W/g, "").toLowerCase()}`;
      const { browser } = await signIn(stack, user);
      const created = await browser.fetch(`${stack.url}/v1/resources`, {
        method: "POST",
        headers: CSRF,
        body: JSON.stringify({ type: "team", name: "Server-rendered team" }),
      });
      expect(created.status).toBe(200);
      // The team, not the app's own _app resource every sign-in joins.
      const hello = `Hello ${user}, member of 1 resources`;
      const gatewayCookie = browser.cookieHeader(stack.url);
      expect(sessionCookie([gatewayCookie])).toBe(gatewayCookie);

      const stranger = await fetch(app.url, { headers: { cookie: "theme=dark" } });
      expect(await stranger.text()).toBe("Hello, stranger");
      expect(stranger.headers.getSetCookie()).toEqual([]);

      const page = await fetch(app.url, { headers: { cookie: `theme=dark; ${gatewayCookie}` } });
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(hello);
      expect(page.headers.getSetCookie()).toEqual([]); // nothing changed: nothing to pass on

      await Bun.sleep(1200); // the 2 s access token's usable half has passed
      const refreshesBefore = stack.idp.calls["token:refresh_token"] ?? 0;
      const refreshed = await fetch(app.url, { headers: { cookie: gatewayCookie } });
      expect(refreshed.status).toBe(200);
      expect(await refreshed.text()).toBe(hello);
      expect((stack.idp.calls["token:refresh_token"] ?? 0) - refreshesBefore).toBe(1);
      const rotated = sessionCookie(refreshed.headers.getSetCookie());
      expect(rotated).toBeDefined();
      expect(rotated).not.toBe(gatewayCookie);
      expect(refreshed.headers.getSetCookie()[0]).toContain("HttpOnly");

      const next = await fetch(app.url, { headers: { cookie: rotated! } });
      expect(await next.text()).toBe(hello);
      expect(next.headers.getSetCookie()).toEqual([]);

      const found = await stack.running.gateway.sessions.resolve(rotated!);
      await stack.running.gateway.sessions.revoke(found!.row.id, "admin");
      const revoked = await fetch(app.url, { headers: { cookie: rotated! } });
      expect(await revoked.text()).toBe("Hello, stranger");
    } finally {
      app.stop();
    }
  }, 30_000);
});
