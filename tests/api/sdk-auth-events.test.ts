/**
 * `auth.onChange` against a real gateway and the development provider: a sign-in heard once, this
 * client's sign-out, and a session that ends under the page (an operator's revoke, expiry at the
 * provider, a sign-out in another tab) heard once with the gateway's reason, on the next call or the
 * next `getSession()`. A listener that throws breaks nothing; one that stopped hears nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AuthChange, createClient, GatewayError } from "../../packages/sdk/src/index.ts";
import type { Browser } from "../../src/devidp/browser.ts";
import { type Stack, signIn, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack.stop());

/** A browser client whose calls go through the test browser's cookie jar. */
const clientOf = (browser: Browser) =>
  createClient({
    gatewayUrl: stack.url,
    clientId: "test-web",
    fetch: (url, init) => browser.fetch(String(url), init),
  });

async function signedInClient(user: string) {
  const { browser } = await signIn(stack, user);
  const client = clientOf(browser);
  const heard: AuthChange[] = [];
  client.auth.onChange((change) => heard.push(change));
  const session = await stack.running.gateway.sessions.resolve(browser.cookieHeader(stack.url));
  return { browser, client, heard, sessionId: session!.row.id };
}

const failure = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error as GatewayError,
  );

describe("auth.onChange", () => {
  test("the first getSession that finds someone is a sign-in, heard once; signOut is heard", async () => {
    const { client, heard } = await signedInClient("events-in-out");
    await client.auth.getSession();
    await client.auth.getSession();
    expect(heard).toEqual([{ type: "signed_in", userId: "events-in-out" }]);
    await client.auth.signOut();
    expect(heard.at(-1)).toEqual({ type: "signed_out" });
    // The gateway now says this browser signed out; the client already knew: nothing more is heard.
    expect(await client.auth.getSession()).toEqual({ authenticated: false, reason: "no_session" });
    expect(heard).toHaveLength(2);
  });

  test("an operator's revoke: the next call's refresh is refused, heard once with reason revoked", async () => {
    const { client, heard, sessionId } = await signedInClient("events-revoked");
    await client.auth.getSession();
    await client.resource.create("team", { name: "Before the revoke" });
    await stack.running.gateway.sessions.revoke(sessionId, "admin");
    const calls = await Promise.all([failure(client.resource.list()), failure(client.resource.list())]);
    for (const error of calls) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 401, code: "unauthenticated", reason: "revoked" });
      expect(error!.message).toBe("Your session was revoked: sign in again.");
    }
    expect(heard).toEqual([
      { type: "signed_in", userId: "events-revoked" },
      { type: "session_ended", reason: "revoked" },
    ]);
    expect(await client.auth.getSession()).toEqual({ authenticated: false, reason: "no_session" });
    expect(heard).toHaveLength(2);
  });

  test("a call whose 401 arrives after the refusal fails the same way, without a second refresh", async () => {
    const { browser, sessionId } = await signedInClient("events-late-401");
    // The second list call's answer is held until the first call has failed: its refresh was refused.
    let firstFailed: Promise<unknown> = Promise.resolve();
    const paths: string[] = [];
    const client = createClient({
      gatewayUrl: stack.url,
      clientId: "test-web",
      fetch: async (url, init) => {
        const path = new URL(String(url)).pathname;
        const nth = paths.push(path) && paths.filter((p) => p === path).length;
        const response = await browser.fetch(String(url), init);
        if (path === "/v1/resources" && nth === 2) await firstFailed;
        return response;
      },
    });
    await stack.running.gateway.sessions.revoke(sessionId, "admin");
    const first = failure(client.resource.list());
    firstFailed = first;
    const second = failure(client.resource.list());
    expect(await first).toMatchObject({ status: 401, reason: "revoked" });
    expect(await second).toMatchObject({ status: 401, reason: "revoked" });
    expect(paths.filter((path) => path === "/auth/refresh")).toHaveLength(1);
  });

  test("a sign-out in another tab: the next getSession hears session_ended with reason signed_out", async () => {
    const { browser, client, heard } = await signedInClient("events-other-tab");
    await client.auth.getSession();
    // The other tab signs out; this browser keeps sending the session's cookie until it hears so.
    const cookie = browser.cookieHeader(stack.url);
    const otherTab = await fetch(`${stack.url}/auth/logout`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-service-csrf": "1" },
      body: "{}",
    });
    expect(otherTab.status).toBe(200);
    expect(await client.auth.getSession()).toEqual({ authenticated: false, reason: "signed_out" });
    expect(heard).toEqual([
      { type: "signed_in", userId: "events-other-tab" },
      { type: "session_ended", reason: "signed_out" },
    ]);
  });

  test("a page loaded on a dead session hears why; one that never signed in hears nothing", async () => {
    const { browser, sessionId } = await signedInClient("events-reload");
    await stack.running.gateway.sessions.revoke(sessionId, "admin");
    const reloaded = clientOf(browser);
    const heard: AuthChange[] = [];
    reloaded.auth.onChange((change) => heard.push(change));
    expect(await reloaded.auth.getSession()).toEqual({ authenticated: false, reason: "revoked" });
    expect(heard).toEqual([{ type: "session_ended", reason: "revoked" }]);

    const stranger = createClient({ gatewayUrl: stack.url, clientId: "test-web" });
    const strangerHeard: AuthChange[] = [];
    stranger.auth.onChange((change) => strangerHeard.push(change));
    expect(await stranger.auth.getSession()).toEqual({ authenticated: false, reason: "no_session" });
    expect(await failure(stranger.resource.list())).toMatchObject({ code: "unauthenticated" });
    expect(strangerHeard).toEqual([]);
  });

  test("a listener that throws breaks nothing; a stopped listener hears nothing", async () => {
    const client = clientOf((await signIn(stack, "events-listeners")).browser);
    const heard: string[] = [];
    const stop = client.auth.onChange(() => heard.push("stopped"));
    client.auth.onChange(() => {
      throw new Error("the app's bug");
    });
    client.auth.onChange((change) => heard.push(change.type));
    stop();
    // The listener's error is reported as uncaught (reportError), for the app's error tracking to see.
    const reported: unknown[] = [];
    const reportError = globalThis.reportError;
    globalThis.reportError = (error: unknown) => reported.push(error);
    try {
      expect(await client.auth.getSession()).toEqual({ authenticated: true, userId: "events-listeners" });
    } finally {
      globalThis.reportError = reportError;
    }
    expect(heard).toEqual(["signed_in"]);
    expect(reported).toEqual([new Error("the app's bug")]);
  });
});
