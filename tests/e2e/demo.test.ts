/**
 * The demo app in Chromium, as two people use it: alice and bob, each in their own browser context
 * (own cookie jar), walk every membership flow of the seed through the page only: create at each
 * visibility, my resources (never `_app`), browse with the name search and the cursor's next page,
 * a roster with roles and states, invite by id, accept and decline, request and an admin's accept or
 * reject, join and leave a public one, change a role, remove, delete, and the refusals in words.
 * Then the truth about sessions: signing out leaves nothing of the user on screen, an operator's
 * revocation (admin API) is noticed on focus, by the periodic check and by the next call, and said in
 * words, and a replayed or refused sign-in redirect leaves the page showing the real session with a
 * readable error.
 * What the page claims is checked against the gateway's API where it matters.
 *
 * The tests share one stack and run in order: each builds on the resources the previous ones made.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { gatewayCall, pauseClock, revokeSessionsOf, signInDemo } from "../helpers/demo-page.ts";
import { launchChromium, startDemoStack } from "../helpers/demo-stack.ts";

let stack: Awaited<ReturnType<typeof startDemoStack>>;
let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];
let alice: Page;
let bob: Page;
/** Resource ids by name, as the page showed them when created. */
const ids: Record<string, string> = {};
const idOf = (name: string) => {
  const id = ids[name];
  if (!id) throw new Error(`no resource named ${name} was created`);
  return id;
};
/** The URL alice's first sign-in came back on (its code already exchanged). */
let aliceCallback: string;

/** A page in a context of its own; its clock is Playwright's, so a test can pause or advance time. */
async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  await context.clock.install();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

beforeAll(async () => {
  stack = await startDemoStack();
  browser = await launchChromium();
  alice = await newPage();
  bob = await newPage();
}, 60_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
}, 30_000);

const signIn = (page: Page, username: string) => signInDemo(page, stack.demoUrl, username);
/** The gateway's API as the page's user, bypassing the demo's code: the stored truth. */
const api = (page: Page, method: string, path: string) => gatewayCall(page, stack.url, method, path);

async function revokeAll(userId: string) {
  expect(await revokeSessionsOf(stack.adminUrl, userId)).toBeGreaterThan(0);
}

async function rosterOf(page: Page, name: string) {
  const answer = await api(page, "GET", `/v1/resources/${idOf(name)}/members`);
  return answer.body.members as Array<{ userId: string; role: string; state: string }>;
}

async function listOf(page: Page, state = "active") {
  const answer = await api(page, "GET", `/v1/resources?state=${state}`);
  return (answer.body.resources as Array<{ id: string; type: string }>).map((r) => r.id);
}

async function create(page: Page, name: string, type: string, visibility = "") {
  await page.fill("#name", name);
  await page.selectOption("#type", type);
  await page.selectOption("#visibility", visibility);
  await page.click("#create button[type=submit]");
  await said(page, "#creating", `Created ${name}`);
  await page.waitForSelector(`#resource-name:text-is("${name}")`);
  ids[name] = (await page.getAttribute("#resource", "data-resource-id"))!;
  await page.waitForSelector(`#mine li[data-resource-id="${ids[name]}"]`);
}

/** Opens a resource by its id (the way someone who was given the id does). */
async function open(page: Page, name: string) {
  await page.fill("#open-id", idOf(name));
  await page.click("#open-form button[type=submit]");
  await page.waitForSelector(`#resource[data-resource-id="${idOf(name)}"]:not([hidden])`);
}

/** Clicks the page's Refresh and waits for `selector` (what the refreshed page must show). */
async function refreshUntil(page: Page, selector: string, state: "attached" | "detached" = "attached") {
  await page.click("#reload");
  await page.waitForSelector(selector, { state });
}

const row = (name: string) => `li[data-resource-id="${idOf(name)}"]`;
const member = (userId: string) => `#roster li[data-user-id="${userId}"]`;
const action = (name: string) => `#resource-actions [data-action="${name}"]`;

/** The open resource's card: its actions, invite form and roster answer there. */
const PANEL = "#resource-panel";

/** What the page's cards say now: every non-empty success (done) or error line, as "#card: words". */
function messages(page: Page, kind: "done" | "error") {
  return page.$$eval(`section > .${kind}`, (lines) =>
    lines.filter((l) => l.textContent).map((l) => `#${l.parentElement!.id}: ${l.textContent}`),
  );
}

/** `words` are said in `card` (beside the control that caused them), and nowhere else on the page. */
async function expectMessage(page: Page, kind: "done" | "error", card: string, words: string) {
  await page.waitForSelector(`${card} > .${kind}:has-text("${words}")`);
  expect(await messages(page, kind)).toEqual([`${card}: ${await page.textContent(`${card} > .${kind}`)}`]);
  expect(await messages(page, kind === "done" ? "error" : "done")).toEqual([]);
}

const said = (page: Page, card: string, words: string) => expectMessage(page, "done", card, words);
const expectError = (page: Page, card: string, words: string) => expectMessage(page, "error", card, words);

describe("the demo app, two people in Chromium", () => {
  test("the page wears the gateway pages' stylesheet, not the browser's defaults", async () => {
    const page = await newPage();
    /** What the shared stylesheet decides, as Chromium computed it on a page. */
    const look = async (url: string) => {
      await page.goto(url);
      return page.evaluate(() => {
        const style = (selector: string, ...names: string[]) => {
          const computed = getComputedStyle(document.querySelector(selector)!);
          return names.map((name) => computed.getPropertyValue(name));
        };
        return {
          // (not font-family: the bundler spells out system-ui's fallbacks)
          body: style("body", "background-color", "color", "font-size", "margin"),
          brand: style(".brand", "text-transform", "color", "font-weight"),
          card: style(".card", "background-color", "border-radius", "box-shadow", "padding-left"),
          button: style("button.primary", "background-color", "color", "border-radius", "font-weight"),
        };
      });
    };
    const landing = await look(`${stack.url}/`);
    const demo = await look(`${stack.demoUrl}/`);
    expect(demo).toEqual(landing);
    expect(demo.body[0]).toBe("rgb(243, 245, 249)"); // the pages' --bg, not the browser's white
    // The stylesheet is the gateway's own file, bundled: not a copy kept in the demo.
    const href = await page.getAttribute("link[rel=stylesheet]", "href");
    const css = await (await fetch(new URL(href!, stack.demoUrl))).text();
    expect(css).toContain("--accent:");
    await page.context().close();
  }, 60_000);

  test("each visibility is created through the app's types; my resources never lists _app", async () => {
    aliceCallback = await signIn(alice, "alice");
    await signIn(bob, "bob");

    await create(alice, "Sunny album", "album");
    await create(alice, "Secret board", "board");
    await create(alice, "Red team", "team");
    await create(alice, "Blue project", "project");
    await create(alice, "Open project", "project", "discoverable");
    const shown = {
      "Sunny album": "discoverable",
      "Secret board": "unlisted",
      "Red team": "members",
      "Blue project": "members",
      "Open project": "discoverable",
    };
    const stored = {
      members: ["members", false],
      unlisted: ["public", false],
      discoverable: ["public", true],
    };
    for (const [name, visibility] of Object.entries(shown)) {
      expect(await alice.getAttribute(`#mine ${row(name)}`, "data-visibility")).toBe(visibility);
      const view = (await api(alice, "GET", `/v1/resources/${ids[name]}`)).body;
      expect([view.visibility, view.discoverable]).toEqual(stored[visibility as keyof typeof stored]);
    }
    // The gateway lists the app's own resource among alice's memberships; the page does not.
    const listed = (await api(alice, "GET", "/v1/resources")).body.resources as Array<{ type: string }>;
    expect(listed.map((r) => r.type)).toContain("_app");
    expect(await alice.$$eval("#mine li", (items) => items.length)).toBe(listed.length - 1);
    expect(await alice.textContent("#mine")).not.toContain("_app");
    // The creator owns it, and the roster says so.
    await alice.waitForSelector(`${member("alice")}[data-role=owner][data-state=active]`);
  }, 60_000);

  test("browse searches by name and pages with the cursor", async () => {
    for (const n of [1, 2, 3, 4]) await create(alice, `Paging album ${n}`, "album");
    await bob.selectOption("#browse-type", "album");
    await bob.fill("#browse-query", "Paging");
    await bob.click("#browse-form button[type=submit]");
    const names = () => bob.$$eval("#browse li span", (items) => items.map((i) => i.textContent ?? ""));
    await bob.waitForFunction(() => {
      const items = [...document.querySelectorAll("#browse li span")].map((i) => i.textContent ?? "");
      return items.length === 3 && items.every((text) => text.startsWith("Paging album"));
    });
    const first = await names();
    expect(await bob.isVisible("#browse-next")).toBe(true);
    expect(await bob.textContent("#browse-page")).toBe("Page 1");

    await bob.click("#browse-next");
    await bob.waitForSelector("#browse-page:text-is('Page 2')");
    const second = await names();
    expect(second).toHaveLength(1);
    expect(await bob.isHidden("#browse-next")).toBe(true);
    const all = [...first, ...second].map((text) => text.replace(/ \(.*/, "")).sort();
    expect(all).toEqual(["Paging album 1", "Paging album 2", "Paging album 3", "Paging album 4"]);

    // The API agrees: three and a cursor, then the last one and none.
    const page1 = (await api(bob, "GET", "/v1/resources/browse?type=album&query=Paging&limit=3")).body;
    expect(page1.resources).toHaveLength(3);
    const page2 = (
      await api(bob, "GET", `/v1/resources/browse?type=album&query=Paging&limit=3&cursor=${page1.nextCursor}`)
    ).body;
    expect(page2).toMatchObject({ nextCursor: null, resources: [{ name: second[0]!.replace(/ \(.*/, "") }] });

    await bob.click("#browse-first");
    await bob.waitForSelector("#browse-page:text-is('Page 1')");
    expect(await names()).toEqual(first);
  }, 60_000);

  test("invite by user id with visible success; the invited user accepts one and declines another", async () => {
    await alice.click(`#mine ${row("Red team")} [data-open]`);
    await alice.waitForSelector(`#resource-name:text-is("Red team")`);
    await alice.fill("#invite-user", "bob");
    await alice.selectOption("#invite-role", "writer");
    await alice.click("#invite button[type=submit]");
    await said(alice, PANEL, "Invited bob as writer");
    await alice.waitForSelector(`${member("bob")}[data-state=invited][data-role=writer]`);
    expect(await rosterOf(alice, "Red team")).toContainEqual({
      userId: "bob",
      role: "writer",
      state: "invited",
    });

    // Inviting again is refused, in words.
    await alice.fill("#invite-user", "bob");
    await alice.click("#invite button[type=submit]");
    await expectError(alice, PANEL, "already has an invite or a request waiting here");

    await open(alice, "Blue project");
    await alice.fill("#invite-user", "bob");
    await alice.click("#invite button[type=submit]");
    await alice.waitForSelector(`${member("bob")}[data-state=invited]`);

    await refreshUntil(bob, `#invites ${row("Blue project")}`);
    await bob.click(`#invites ${row("Red team")} [data-action=accept-invite]`);
    await said(bob, "#waiting", "You joined Red team.");
    await bob.waitForSelector(`#mine ${row("Red team")}`);
    await bob.click(`#invites ${row("Blue project")} [data-action=reject-invite]`);
    await said(bob, "#waiting", "You declined the invite to Blue project.");
    await bob.waitForSelector(`#invites ${row("Blue project")}`, { state: "detached" });

    expect(await listOf(bob)).toContain(idOf("Red team"));
    expect(await listOf(bob, "invited")).toEqual([]);
    expect(await rosterOf(alice, "Red team")).toContainEqual({
      userId: "bob",
      role: "writer",
      state: "active",
    });
    expect((await rosterOf(alice, "Blue project")).map((m) => m.userId)).toEqual(["alice"]);
  }, 60_000);

  test("request to join a members-only resource; the admin accepts one request and rejects another", async () => {
    await create(alice, "Closed team", "team");
    for (const name of ["Blue project", "Closed team"]) {
      await open(bob, name);
      // Members-only: bob cannot see it, only ask.
      await bob.waitForSelector("#resource-name:text-is('A resource you cannot see')");
      expect(await bob.$$eval("#resource-actions button", (b) => b.map((x) => x.dataset.action))).toEqual([
        "request",
      ]);
      await bob.click(action("request"));
      await said(bob, PANEL, "You asked to join");
      await bob.waitForSelector(`#requests ${row(name)}`);
    }
    expect((await listOf(bob, "requested")).sort()).toEqual(
      [idOf("Blue project"), idOf("Closed team")].sort(),
    );

    await open(alice, "Blue project");
    await alice.click(`${member("bob")}[data-state=requested] [data-action=accept-request]`);
    await said(alice, PANEL, "bob is now a member.");
    await alice.waitForSelector(`${member("bob")}[data-state=active]`);
    await open(alice, "Closed team");
    await alice.click(`${member("bob")}[data-state=requested] [data-action=reject-request]`);
    await said(alice, PANEL, "You turned down bob's request.");
    await alice.waitForSelector(member("bob"), { state: "detached" });

    await refreshUntil(bob, `#mine ${row("Blue project")}`);
    await bob.waitForSelector(`#requests ${row("Closed team")}`, { state: "detached" });
    expect(await listOf(bob, "requested")).toEqual([]);
    expect((await rosterOf(alice, "Closed team")).map((m) => m.userId)).toEqual(["alice"]);
  }, 60_000);

  test("join and leave a public resource, from browse and by id; the owner cannot leave", async () => {
    await bob.selectOption("#browse-type", "album");
    await bob.fill("#browse-query", "Sunny");
    await bob.click("#browse-form button[type=submit]");
    await bob.click(`#browse ${row("Sunny album")} [data-action=join]`);
    await said(bob, "#browsing", "You joined Sunny album.");
    await bob.waitForSelector(`#mine ${row("Sunny album")}`);
    await bob.waitForSelector(`#browse ${row("Sunny album")}:has-text("2 members")`);
    expect((await api(bob, "GET", `/v1/resources/${idOf("Sunny album")}`)).body.memberCount).toBe(2);

    await bob.click(`#mine ${row("Sunny album")} [data-open]`);
    await bob.waitForSelector(`${member("bob")}[data-state=active]`);
    await bob.click(action("leave"));
    await said(bob, PANEL, "You left Sunny album.");
    await bob.waitForSelector(`#mine ${row("Sunny album")}`, { state: "detached" });
    expect((await api(bob, "GET", `/v1/resources/${idOf("Sunny album")}`)).body.memberCount).toBe(1);

    // Unlisted: not in browse, but anyone with the id may join.
    await open(bob, "Secret board");
    await bob.click(action("join"));
    await said(bob, PANEL, "You joined Secret board.");
    await bob.waitForSelector(`#mine ${row("Secret board")}`);
    expect(await listOf(bob)).toContain(idOf("Secret board"));

    await open(alice, "Sunny album");
    await alice.click(action("leave"));
    await expectError(alice, PANEL, "The owner cannot leave; delete the resource instead.");
    expect(await rosterOf(alice, "Sunny album")).toContainEqual({
      userId: "alice",
      role: "owner",
      state: "active",
    });
  }, 60_000);

  test("an admin changes a role and removes a member; refusals are said in words", async () => {
    await open(alice, "Red team");
    await alice.selectOption(`${member("bob")} select[data-field=role]`, "admin");
    await alice.click(`${member("bob")} [data-action=set-role]`);
    await said(alice, PANEL, "bob is now admin.");
    await alice.waitForSelector(`${member("bob")}[data-role=admin]`);
    expect(await rosterOf(alice, "Red team")).toContainEqual({
      userId: "bob",
      role: "admin",
      state: "active",
    });

    // bob, now an admin, tries what only the owner may.
    await open(bob, "Red team");
    await bob.waitForSelector("#resource-membership:text-is('Your role here: admin.')");
    await bob.click(`${member("alice")} [data-action=remove]`);
    await expectError(bob, PANEL, "The owner's membership cannot be changed or removed.");
    await bob.click(action("delete"));
    await bob.click(action("confirm-delete"));
    await expectError(bob, PANEL, "You don't have the rights to do that on this resource.");
    expect(await bob.textContent(`${PANEL} > .error`)).not.toContain("bearer");

    await alice.click(`${member("bob")} [data-action=remove]`);
    await said(alice, PANEL, "Removed bob.");
    await alice.waitForSelector(member("bob"), { state: "detached" });
    await refreshUntil(bob, `#mine ${row("Red team")}`, "detached");
    expect(await listOf(bob)).not.toContain(idOf("Red team"));
    expect((await rosterOf(alice, "Red team")).map((m) => m.userId)).toEqual(["alice"]);
  }, 60_000);

  test("the owner deletes a resource, once she confirms", async () => {
    await open(alice, "Sunny album");
    await alice.click(action("delete"));
    // Asked in place of the buttons; nothing is deleted yet.
    await alice.waitForSelector(
      `#resource-actions:has-text("Delete Sunny album and everything in it? This cannot be undone.")`,
    );
    expect(await alice.$$eval("#resource-actions button", (b) => b.map((x) => x.dataset.action))).toEqual([
      "confirm-delete",
      "cancel-delete",
    ]);
    expect((await api(alice, "GET", `/v1/resources/${idOf("Sunny album")}`)).status).toBe(200);
    await alice.click(action("cancel-delete"));
    await said(alice, PANEL, "Nothing was deleted: Sunny album is still here.");
    await alice.waitForSelector(action("leave"));
    expect((await api(alice, "GET", `/v1/resources/${idOf("Sunny album")}`)).status).toBe(200);
    await alice.click(action("delete"));
    await alice.click(action("confirm-delete"));
    await said(alice, PANEL, "Deleted Sunny album.");
    await alice.waitForSelector("#resource", { state: "hidden" });
    await alice.waitForSelector(`#mine ${row("Sunny album")}`, { state: "detached" });
    expect((await api(alice, "GET", `/v1/resources/${idOf("Sunny album")}`)).status).toBe(404);
  }, 60_000);

  test("signing out leaves nothing of the user on the page", async () => {
    await open(alice, "Red team");
    await alice.fill("#invite-user", "someone-typed");
    await alice.click("#sign-out");
    await alice.waitForSelector("body[data-state=signed-out]");
    await alice.waitForSelector("#notice:text-is('You signed out.')");
    await expectNothingOf(alice, "alice");
    expect(await alice.inputValue("#invite-user")).toBe("");
    expect((await api(alice, "GET", "/auth/session")).body.authenticated).toBe(false);
  }, 60_000);

  test("an operator's revocation is noticed when the window gets focus, and said in words", async () => {
    await bob.waitForSelector(`#mine ${row("Blue project")}`);
    await pauseClock(bob); // no periodic check can notice it: only the focus
    await revokeAll("bob");
    // What a browser fires when the person comes back to the window.
    await bob.evaluate(() => window.dispatchEvent(new Event("focus")));
    await bob.waitForSelector("body[data-state=signed-out]");
    await bob.waitForSelector(
      "#notice:text-is('An administrator ended your session. Sign in again to continue.')",
    );
    await expectNothingOf(bob, "bob");
    expect((await api(bob, "GET", "/auth/session")).body).toEqual({
      authenticated: false,
      reason: "revoked",
    });
  }, 60_000);

  test("a revocation is noticed by the periodic check while the page sits open", async () => {
    const dave = await newPage();
    await signIn(dave, "dave");
    await create(dave, "Dave's drafts", "project");
    await pauseClock(dave);
    await revokeAll("dave");
    await dave.clock.runFor("01:00"); // a minute passes with the page open and untouched
    await dave.waitForSelector("body[data-state=signed-out]");
    await dave.waitForSelector(
      "#notice:text-is('An administrator ended your session. Sign in again to continue.')",
    );
    await expectNothingOf(dave, "dave");
  }, 60_000);

  test("a revocation is noticed by the next call the page makes", async () => {
    const carol = await newPage();
    await signIn(carol, "carol");
    await create(carol, "Carol's notes", "project");
    await revokeAll("carol");
    await carol.click("#reload"); // the list calls are refused, the refresh too: the session ended
    await carol.waitForSelector("body[data-state=signed-out]");
    await carol.waitForSelector(
      "#notice:text-is('An administrator ended your session. Sign in again to continue.')",
    );
    await expectNothingOf(carol, "carol");
    expect(await messages(carol, "error")).toEqual([]);
  }, 60_000);

  test("a replayed or refused sign-in redirect shows the real session and the error in words", async () => {
    // Signed out: replaying the used callback URL signs nobody in.
    await alice.goto(aliceCallback);
    await alice.waitForSelector("body[data-state=signed-out]");
    await expectError(alice, "#session", "This sign-in link was already used");
    expect(new URL(alice.url()).search).toBe("");
    expect((await api(alice, "GET", "/auth/session")).body.authenticated).toBe(false);

    // Signed in: replaying this sign-in's own callback changes nothing, and says why.
    const again = await signIn(alice, "alice");
    await alice.goto(again);
    await alice.waitForSelector(`body[data-state=signed-in] #user:text-is("alice")`);
    await expectError(alice, "#session", "This sign-in link was already used");
    await alice.waitForSelector(`#mine ${row("Red team")}`);
    expect((await api(alice, "GET", "/auth/session")).body).toEqual({
      authenticated: true,
      user_id: "alice",
    });

    // The provider refused (the person declined): still signed in, told in words.
    await alice.goto(`${stack.demoUrl}/?error=access_denied&error_description=The+user+said+no`);
    await alice.waitForSelector(`body[data-state=signed-in] #user:text-is("alice")`);
    await expectError(alice, "#session", "Sign-in was cancelled or refused at the identity provider.");
    for (const page of [alice, bob])
      expect((await messages(page, "error")).join(" ")).not.toMatch(/bearer|state_mismatch/);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  test("an answer that arrives after the sign-out is not painted", async () => {
    await alice.waitForSelector(`#mine ${row("Red team")}`);
    // Hold alice's "my resources" answer (fetched while she is signed in) until she has signed out.
    let fetched!: () => void;
    const answered = new Promise<void>((resolve) => {
      fetched = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = (url: URL) => url.pathname === "/v1/resources" && url.search === "";
    await alice.route(mine, async (route) => {
      const response = await route.fetch();
      fetched();
      await released;
      await route.fulfill({ response });
    });
    await alice.click("#reload");
    await answered;
    await alice.click("#sign-out");
    await alice.waitForSelector("body[data-state=signed-out]");

    const finished = alice.waitForEvent("requestfinished", (request) => mine(new URL(request.url())));
    release();
    await finished;
    await alice.evaluate(async () => (await fetch("/config.json")).text()); // let the page take it in
    await expectNothingOf(alice, "alice");
    await alice.unroute(mine);
  }, 60_000);
});

/** Nothing on the page, shown or hidden, names the user or any resource this test made. */
async function expectNothingOf(page: Page, userId: string) {
  const text = (await page.textContent("body")) ?? "";
  expect(text).not.toContain(userId);
  for (const [name, id] of Object.entries(ids)) {
    expect(text).not.toContain(name);
    expect(text).not.toContain(id);
  }
  for (const list of ["#mine", "#invites", "#requests", "#browse", "#roster", "#resource-actions"])
    expect(await page.$$eval(`${list} > *`, (children) => children.length)).toBe(0);
  expect(await page.isHidden("#app")).toBe(true);
  expect(await page.isHidden("#resource")).toBe(true);
  expect(await messages(page, "done")).toEqual([]);
}
