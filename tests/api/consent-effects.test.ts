/**
 * Consent's side effects are one change each and never lost: the welcome credit and its
 * `consent.accepted` event commit together or not at all; with the database busy, consent still
 * answers at once and the `_app` join and the credit are applied later (in the background, or at the
 * next sign-in), exactly once. Real sockets, the development provider.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sqliteOf } from "../helpers/db.ts";
import { consentFlow, type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { writeWaitMs: 300 } });
}, 60_000);
afterAll(() => stack.stop());

const sqlite = () => sqliteOf(stack.running.gateway.storage);
const credits = (user: string) =>
  (sqlite().query("SELECT count(*) AS n FROM credits WHERE user_id = ?").get(user) as { n: number }).n;
const events = (user: string, type: string) =>
  (
    sqlite().query("SELECT count(*) AS n FROM events WHERE user_id = ? AND type = ?").get(user, type) as {
      n: number;
    }
  ).n;
const appMember = (user: string) =>
  sqlite()
    .query(
      "SELECT m.state FROM members m JOIN resources r ON r.id = m.resource_id WHERE r.type = '_app' AND m.user_id = ?",
    )
    .get(user) as { state: string } | null;

async function consentFor(user: string) {
  const flow = await consentFlow(stack, user);
  return { accept: flow.accept, signIn: (redirectTo: string) => flow.exchange(redirectTo) };
}

async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await Bun.sleep(10);
}

describe("consent's side effects", () => {
  test("the welcome credit and consent.accepted commit together: an event that fails leaves no credit", async () => {
    const flow = await consentFor("effects-atomic");
    sqlite().exec(
      "CREATE TRIGGER fail_consent_event BEFORE INSERT ON events WHEN NEW.type = 'consent.accepted' BEGIN SELECT RAISE(ABORT, 'injected'); END",
    );
    try {
      const accepted = await flow.accept();
      expect(accepted.status).toBe(200); // side effects never block consent
      expect(await accepted.json()).toMatchObject({ welcomed: false });
      expect(credits("effects-atomic")).toBe(0);
      expect(events("effects-atomic", "consent.accepted")).toBe(0);
    } finally {
      sqlite().exec("DROP TRIGGER fail_consent_event");
    }
  }, 30_000);

  test("with the database busy, consent answers at once and the join and credit follow, exactly once", async () => {
    const flow = await consentFor("effects-busy");
    const holder = new Database(join(stack.dataDir, "gateway.db"));
    holder.exec("BEGIN IMMEDIATE");
    let accepted: Response;
    try {
      accepted = await flow.accept();
      expect(accepted.status).toBe(200);
      expect(appMember("effects-busy")).toBeNull();
      expect(credits("effects-busy")).toBe(0);
    } finally {
      await Bun.sleep(50);
      holder.exec("ROLLBACK");
      holder.close();
    }
    // The background retry applies them once the lock is free.
    await until(() => credits("effects-busy") === 1 && appMember("effects-busy") !== null);
    expect(appMember("effects-busy")).toEqual({ state: "active" });
    expect(credits("effects-busy")).toBe(1);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect((await flow.signIn(redirect_to)).status).toBe(200);
    expect(credits("effects-busy")).toBe(1);
    expect(events("effects-busy", "consent.accepted")).toBe(1);
  }, 30_000);

  test("when the database stays busy past every retry, the next sign-in applies them, exactly once", async () => {
    const flow = await consentFor("effects-late");
    const holder = new Database(join(stack.dataDir, "gateway.db"));
    holder.exec("BEGIN IMMEDIATE");
    let accepted: Response;
    try {
      accepted = await flow.accept();
      expect(accepted.status).toBe(200);
      await Bun.sleep(700); // longer than the gateway's write wait (300 ms here): the background gave up
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(appMember("effects-late")).toBeNull();
    expect(credits("effects-late")).toBe(0);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect((await flow.signIn(redirect_to)).status).toBe(200);
    expect(appMember("effects-late")).toEqual({ state: "active" });
    expect(credits("effects-late")).toBe(1);
    expect(events("effects-late", "credit.welcome")).toBe(1);
  }, 30_000);
});
