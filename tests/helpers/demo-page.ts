/**
 * Driving the demo app as a person does, for the Chromium tests: sign in through the development
 * provider's login page (and the consent page the first time), read the gateway's API as the page's
 * user (the stored truth, beside what the page claims), revoke a user's sessions as an operator, and
 * stop a page's clock so only the test decides when its timers fire.
 */
import type { Page } from "playwright-core";
import { DEMO_ADMIN_TOKEN } from "./demo-stack.ts";

/** Signs `username` in from the demo's page; returns the URL the sign-in came back on (code and state). */
export async function signInDemo(page: Page, demoUrl: string, username: string): Promise<string> {
  await page.goto(`${demoUrl}/`);
  await page.waitForSelector("body[data-state=signed-out]");
  const callback = page.waitForRequest(
    (request) =>
      request.isNavigationRequest() &&
      request.url().startsWith(`${demoUrl}/`) &&
      new URL(request.url()).searchParams.has("code"),
  );
  await page.click("#sign-in");
  await page.waitForURL((url) => url.pathname === "/login");
  await page.fill("input[name=username]", username);
  // A remembered consent skips the consent page.
  await Promise.all([
    page.waitForURL((url) => url.pathname === "/auth/consent" || url.origin === demoUrl),
    page.press("input[name=username]", "Enter"),
  ]);
  if (new URL(page.url()).pathname === "/auth/consent") await page.click("#accept");
  const url = (await callback).url();
  await page.waitForSelector(`body[data-state=signed-in] #user:text-is("${username}")`);
  return url;
}

/** One call to the gateway from the page, with its user's cookies but not through the demo's code. */
export function gatewayCall(
  page: Page,
  gatewayUrl: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ url, method, body }) => {
      const headers: Record<string, string> = method === "GET" ? {} : { "x-service-csrf": "1" };
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(url, { method, headers, body, credentials: "include" });
      return { status: response.status, body: await response.json() };
    },
    { url: `${gatewayUrl}${path}`, method, body: json === undefined ? undefined : JSON.stringify(json) },
  );
}

/** Ends every live session of `userId` through the admin API, as an operator would; how many. */
export async function revokeSessionsOf(adminUrl: string, userId: string): Promise<number> {
  const headers = { authorization: `Bearer ${DEMO_ADMIN_TOKEN}` };
  const live = await fetch(`${adminUrl}/admin/v1/sessions?userId=${encodeURIComponent(userId)}`, { headers });
  const { sessions } = (await live.json()) as { sessions: Array<{ id: string }> };
  for (const session of sessions) {
    const revoked = await fetch(`${adminUrl}/admin/v1/sessions/${session.id}`, { method: "DELETE", headers });
    if (revoked.status !== 200) throw new Error(`revoking ${session.id}: ${revoked.status}`);
  }
  return sessions.length;
}

/** Stops the page's clock (installed with its context): from here only `clock.runFor` fires timers. */
export async function pauseClock(page: Page): Promise<void> {
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1);
}
