/**
 * "My devices" in the demo app, in Chromium: one person signed in from two browser contexts (two
 * devices) sees both sessions, each with the device read from Chromium's User-Agent, this one marked;
 * "Sign out my other devices" on the first ends the second, whose page then shows why (the SDK's
 * reason `signed_out_elsewhere`, in words), while the first stays signed in with one session listed.
 * A third device signed out by its own "Sign out" button in the list is told the same.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { gatewayCall, pauseClock, signInDemo } from "../helpers/demo-page.ts";
import { launchChromium, startDemoStack } from "../helpers/demo-stack.ts";

let stack: Awaited<ReturnType<typeof startDemoStack>>;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  await context.clock.install();
  return context.newPage();
}

beforeAll(async () => {
  stack = await startDemoStack();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
}, 30_000);

const ENDED_ELSEWHERE = "You signed this device out from another of your devices. Sign in again to continue.";

/** The page notices when the person comes back to it (its periodic check is paused). */
async function comeBack(page: Page) {
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
}

test("sign out my other devices: the other device's page says why, this one keeps only itself", async () => {
  const laptop = await newPage();
  const phone = await newPage();
  const tablet = await newPage();
  await signInDemo(laptop, stack.demoUrl, "casey");
  await signInDemo(phone, stack.demoUrl, "casey");
  await signInDemo(tablet, stack.demoUrl, "casey");
  await laptop.click("#reload");
  await laptop.waitForFunction(() => document.querySelectorAll("#devices li").length === 3);
  const items = await laptop.$$eval("#devices li", (lis) => lis.map((li) => li.textContent ?? ""));
  expect(items.every((text) => text.startsWith("Chrome on Linux"))).toBe(true);
  expect(items.filter((text) => text.includes("(this device)"))).toHaveLength(1);

  // One device signed out from the list: the tablet (the newest session is listed first).
  const tabletId = (await gatewayCall(tablet, stack.url, "GET", "/auth/sessions")).body.sessions.find(
    (s: { current: boolean }) => s.current,
  ).id as string;
  await pauseClock(tablet);
  await laptop.click(`#devices li[data-session="${tabletId}"] [data-action=revoke-session]`);
  await laptop.waitForFunction(() => document.querySelectorAll("#devices li").length === 2);
  await comeBack(tablet);
  await tablet.waitForSelector("body[data-state=signed-out]");
  await tablet.waitForSelector(`#notice:text-is("${ENDED_ELSEWHERE}")`);

  await pauseClock(phone);
  await laptop.click("#sign-out-others");
  await laptop.waitForSelector('#my-devices .done:text-is("Signed out 1 other device.")');
  await laptop.waitForFunction(() => document.querySelectorAll("#devices li").length === 1);
  expect(await laptop.textContent("#devices li")).toContain("(this device)");
  await comeBack(phone);
  await phone.waitForSelector("body[data-state=signed-out]");
  await phone.waitForSelector(`#notice:text-is("${ENDED_ELSEWHERE}")`);
  expect((await gatewayCall(phone, stack.url, "GET", "/auth/session")).body).toEqual({
    authenticated: false,
    reason: "signed_out_elsewhere",
  });
  expect((await gatewayCall(laptop, stack.url, "GET", "/auth/sessions")).body.sessions).toHaveLength(1);
  await laptop.waitForSelector("body[data-state=signed-in]");
}, 90_000);
