/**
 * Consent's side effects are one change each and never lost: the welcome credit and its
 * `consent.accepted` event commit together or not at all; with the database busy, consent still
 * answers at once and the `_app` join and the credit are applied later (in the background, or at the
 * next sign-in), exactly once. Real sockets, the development provider.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { failWrites, sql } from "../helpers/db.ts";
import { testEngine } from "../helpers/postgres.ts";
import { consentFlow, type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { writeWaitMs: 300 } });
}, 60_000);
afterAll(() => stack.stop());

const db = () => sql(stack.running.gateway.storage);
const credits = (user: string) => db().count("SELECT count(*) AS n FROM credits WHERE user_id = ?", user);
const events = (user: string, type: string) =>
  db().count("SELECT count(*) AS n FROM events WHERE user_id = ? AND type = ?", user, type);
const appMember = (user: string) =>
  db().get<{ state: string }>(
    "SELECT m.state FROM members m JOIN resources r ON r.id = m.resource_id WHERE r.type = '_app' AND m.user_id = ?",
    user,
  );
/** The other process holding SQLite's write lock exists on SQLite only. */
const onSqlite = test.if(testEngine === "sqlite");

async function consentFor(user: string) {
  const flow = await consentFlow(stack, user);
  return { accept: flow.accept, signIn: (redirectTo: string) => flow.exchange(redirectTo) };
}

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 200 && !(await check()); i++) await Bun.sleep(10);
}

describe("consent's side effects", () => {
  test("the welcome credit and consent.accepted commit together: an event that fails leaves no credit", async () => {
    const flow = await consentFor("effects-atomic");
    const undo = await failWrites(
      stack.running.gateway.storage,
      "fail_consent_event",
      "INSERT",
      "events",
      "NEW.type = 'consent.accepted'",
    );
    try {
      const accepted = await flow.accept();
      expect(accepted.status).toBe(200); // side effects never block consent
      expect(await accepted.json()).toMatchObject({ welcomed: false });
      expect(await credits("effects-atomic")).toBe(0);
      expect(await events("effects-atomic", "consent.accepted")).toBe(0);
    } finally {
      await undo();
    }
  }, 30_000);

  onSqlite(
    "with the database busy, consent answers at once and the join and credit follow, exactly once",
    async () => {
      const flow = await consentFor("effects-busy");
      const holder = new Database(join(stack.dataDir, "gateway.db"));
      holder.exec("BEGIN IMMEDIATE");
      let accepted: Response;
      try {
        accepted = await flow.accept();
        expect(accepted.status).toBe(200);
        expect(await appMember("effects-busy")).toBeNull();
        expect(await credits("effects-busy")).toBe(0);
      } finally {
        await Bun.sleep(50);
        holder.exec("ROLLBACK");
        holder.close();
      }
      // The background retry applies them once the lock is free.
      await until(
        async () => (await credits("effects-busy")) === 1 && (await appMember("effects-busy")) !== null,
      );
      expect(await appMember("effects-busy")).toEqual({ state: "active" });
      expect(await credits("effects-busy")).toBe(1);
      const { redirect_to } = (await accepted.json()) as { redirect_to: string };
      expect((await flow.signIn(redirect_to)).status).toBe(200);
      expect(await credits("effects-busy")).toBe(1);
      expect(await events("effects-busy", "consent.accepted")).toBe(1);
    },
    30_000,
  );

  onSqlite(
    "when the database stays busy past every retry, the next sign-in applies them, exactly once",
    async () => {
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
      expect(await appMember("effects-late")).toBeNull();
      expect(await credits("effects-late")).toBe(0);
      const { redirect_to } = (await accepted.json()) as { redirect_to: string };
      expect((await flow.signIn(redirect_to)).status).toBe(200);
      expect(await appMember("effects-late")).toEqual({ state: "active" });
      expect(await credits("effects-late")).toBe(1);
      expect(await events("effects-late", "credit.welcome")).toBe(1);
    },
    30_000,
  );
});
