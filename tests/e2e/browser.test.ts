/**
 * The SDK in a real browser (Debian's Chromium via playwright-core): the demo app on its own origin
 * signs in through the development provider's login page and the gateway's consent page, shows the
 * user, creates a resource and signs out; no token is ever readable from page scripts or storage.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { launchBrowser, startDemoStack } from "../helpers/demo-stack.ts";
import { freePort } from "../helpers/stack.ts";

let stack: Awaited<ReturnType<typeof startDemoStack>>;
let context: BrowserContext;
beforeAll(async () => {
  stack = await startDemoStack();
  context = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await context?.close();
  await stack?.stop();
}, 30_000);

describe("the demo app in Chromium", () => {
  test("sign in, see the user, create a resource, sign out; tokens stay out of page reach", async () => {
    const page = await context.newPage();
    await page.goto(`${stack.demoUrl}/`);
    await page.waitForSelector("body[data-state=signed-out]");
    expect(await page.isVisible("#nobody")).toBe(true);
    expect(await page.textContent("#user")).toBe("");

    await page.click("#sign-in");
    await page.waitForURL((url) => url.pathname === "/login");
    await page.fill("input[name=username]", "browser-alice");
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/auth/consent"),
      page.press("input[name=username]", "Enter"),
    ]);
    expect(await page.textContent("h1")).toBe("Allow Demo to use your account?");
    await page.click("#accept");
    await page.waitForURL((url) => url.origin === stack.demoUrl);
    await page.waitForSelector("body[data-state=signed-in]");
    expect(await page.textContent("#user")).toBe("browser-alice");
    expect(new URL(page.url()).search).toBe(""); // code and state cleaned from the address bar

    await page.fill("#name", "Holiday pictures");
    await page.selectOption("#type", "album");
    await page.click("#create button");
    await page.waitForSelector("#creating :text('Created Holiday pictures')"); // said beside its control
    await page.waitForSelector("#mine:has-text('Holiday pictures')"); // the list refreshes after the create
    expect(await page.textContent("#mine")).toContain("Holiday pictures");

    // The session cookie is httpOnly, and nothing the page can read holds a token.
    const cookies = await context.cookies(stack.url);
    const session = cookies.find((c) => c.name === "sg_session");
    expect(session?.httpOnly).toBe(true);
    const header = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const tokens = await stack.running.gateway.sessions.resolve(header);
    expect(tokens).not.toBeNull();
    const reach = await page.evaluate(() => ({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
    }));
    expect(reach.cookie).not.toContain("sg_session");
    expect(reach.session).toBe("{}"); // the PKCE verifier is gone after the callback
    for (const secret of [tokens!.cookie.at, tokens!.cookie.rt!]) {
      expect(JSON.stringify(reach)).not.toContain(secret);
    }
    const viaGateway = await page.evaluate(
      async (url) => (await fetch(`${url}/auth/session`, { credentials: "include" })).text(),
      stack.url,
    );
    expect(JSON.parse(viaGateway)).toEqual({ authenticated: true, user_id: "browser-alice" });
    expect(viaGateway).not.toContain(tokens!.cookie.at);

    await page.click("#sign-out");
    await page.waitForSelector("body[data-state=signed-out]");
    expect(await page.textContent("#user")).toBe("");
    expect((await context.cookies(stack.url)).find((c) => c.name === "sg_session")).toBeUndefined();
    expect(await stack.running.gateway.sessions.resolve(header)).toBeNull();
    await page.close();
  }, 60_000);

  test("a page on an unregistered origin cannot read gateway responses", async () => {
    const port = freePort();
    const other = Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response("<!doctype html><title>other</title>", { headers: { "content-type": "text/html" } }),
    });
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      const outcome = await page.evaluate(async (url) => {
        const results: string[] = [];
        for (const init of [{ credentials: "include" as const }, {}]) {
          try {
            const res = await fetch(`${url}/auth/session`, init);
            results.push(`read:${await res.text()}`);
          } catch (error) {
            results.push(`blocked:${(error as Error).name}`);
          }
        }
        try {
          await fetch(`${url}/auth/logout`, {
            method: "POST",
            credentials: "include",
            headers: { "x-service-csrf": "1" },
          });
          results.push("posted");
        } catch (error) {
          results.push(`blocked:${(error as Error).name}`);
        }
        return results;
      }, stack.url);
      expect(outcome).toEqual(["blocked:TypeError", "blocked:TypeError", "blocked:TypeError"]);
      await page.close();
    } finally {
      other.stop(true);
    }
  }, 30_000);
});
