import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SeedResult, seedResources, uuidv7Time } from "../../bench/seed-resources.ts";

const RESOURCES = 2_000;
const MEMBERSHIPS = 20_000;
const USERS = 5_000;
const BIG = 50;
const RARE = 20;

const one = (db: Database, sql: string, ...params: (string | number)[]): number =>
  Object.values(db.query(sql).get(...params) as object)[0] as number;

describe("bench seeder (bench/seed-resources.ts)", () => {
  let dir: string;
  let db: Database;
  let result: SeedResult;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sg-seed-"));
    result = await seedResources({
      path: join(dir, "a.db"),
      appId: "app1",
      resources: RESOURCES,
      memberships: MEMBERSHIPS,
      users: USERS,
      bigResourceMembers: BIG,
      rareCount: RARE,
    });
    db = new Database(join(dir, "a.db"), { readonly: true });
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("row counts, app, types and visibility", () => {
    expect(one(db, "SELECT count(*) FROM resources")).toBe(RESOURCES);
    expect(one(db, "SELECT count(*) FROM members")).toBe(MEMBERSHIPS);
    expect(one(db, "SELECT count(*) FROM resources WHERE app_id != 'app1'")).toBe(0);
    expect(one(db, "SELECT count(*) FROM members WHERE app_id != 'app1'")).toBe(0);
    expect(
      one(
        db,
        `SELECT count(*) FROM resources WHERE NOT (
           (type = 'album' AND visibility = 'public' AND discoverable = 1) OR
           (type = 'team' AND visibility = 'members' AND discoverable = 0))`,
      ),
    ).toBe(0);
    const albums = one(db, "SELECT count(*) FROM resources WHERE type = 'album'");
    expect(albums / RESOURCES).toBeGreaterThan(0.75);
    expect(albums / RESOURCES).toBeLessThan(0.85);
    expect(one(db, "SELECT count(*) FROM members WHERE state != 'active' OR invited_by IS NOT NULL")).toBe(0);
    expect(one(db, "SELECT count(*) FROM members WHERE updated_at < created_at")).toBe(0);
  });

  test("member_count equals the active members (a sample, then all)", () => {
    const count = db.query(
      "SELECT r.member_count AS stored, (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active') AS actual FROM resources r WHERE r.id = ?",
    );
    for (const id of result.resourceIds.slice(0, 200)) {
      const row = count.get(id) as { stored: number; actual: number };
      expect(row.stored).toBe(row.actual);
    }
    expect(
      one(
        db,
        "SELECT count(*) FROM resources r WHERE member_count != (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.state = 'active')",
      ),
    ).toBe(0);
  });

  test("exactly one owner per resource, the resource's owner_id", () => {
    expect(
      one(
        db,
        "SELECT count(*) FROM resources r WHERE (SELECT count(*) FROM members m WHERE m.resource_id = r.id AND m.role = 'owner') != 1",
      ),
    ).toBe(0);
    expect(
      one(
        db,
        "SELECT count(*) FROM members m JOIN resources r ON r.id = m.resource_id WHERE m.role = 'owner' AND m.user_id != r.owner_id",
      ),
    ).toBe(0);
    expect(one(db, "SELECT count(*) FROM pragma_foreign_key_check")).toBe(0);
  });

  test("ids are UUIDv7 carrying created_at, in seq order; user ids are u000001-shaped", () => {
    const rows = db.query("SELECT id, created_at, owner_id FROM resources ORDER BY seq").all() as Array<{
      id: string;
      created_at: number;
      owner_id: string;
    }>;
    let previous = "";
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(uuidv7Time(row.id)).toBe(row.created_at);
      expect(row.id > previous).toBe(true);
      expect(row.owner_id).toMatch(/^u\d{6}$/);
      previous = row.id;
    }
    const first = rows[0]!.created_at;
    const last = rows[rows.length - 1]!.created_at;
    expect(last - first).toBeGreaterThan(4.5 * 365 * 86_400_000);
  });

  test("names: 4 adjectives, the rare word in exactly rareCount names, found by FTS", () => {
    expect(one(db, "SELECT count(DISTINCT substr(name, 1, instr(name, ' ') - 1)) FROM resources")).toBe(4);
    expect(one(db, "SELECT count(*) FROM resources WHERE name LIKE '%quokka%'")).toBe(RARE);
    expect(one(db, `SELECT count(*) FROM resources_fts WHERE resources_fts MATCH '"quokka"'`)).toBe(RARE);
    expect(one(db, "SELECT count(*) FROM resources_fts WHERE resources_fts MATCH 'alpha'")).toBe(
      one(db, "SELECT count(*) FROM resources WHERE name LIKE '%alpha%'"),
    );
    // The insert trigger and the members_user index were put back exactly.
    expect(one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'resources_fts_insert'")).toBe(1);
    expect(one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'members_user'")).toBe(1);
  });

  test("the big resource has exactly bigResourceMembers active members and is discoverable", () => {
    expect(
      one(
        db,
        "SELECT count(*) FROM members WHERE resource_id = ? AND state = 'active'",
        result.bigResourceId,
      ),
    ).toBe(BIG);
    expect(one(db, "SELECT member_count FROM resources WHERE id = ?", result.bigResourceId)).toBe(BIG);
    expect(one(db, "SELECT discoverable FROM resources WHERE id = ?", result.bigResourceId)).toBe(1);
  });

  test("samples: discoverable ids, active memberships, join targets apart", () => {
    const discoverable = db.query("SELECT discoverable FROM resources WHERE id = ?");
    const active = db.query("SELECT state FROM members WHERE resource_id = ? AND user_id = ?");
    expect(result.resourceIds.length).toBe(one(db, "SELECT count(*) FROM resources WHERE discoverable = 1"));
    expect(new Set(result.resourceIds).size).toBe(result.resourceIds.length);
    for (const id of [...result.resourceIds, ...result.joinTargets]) {
      expect(discoverable.get(id)).toEqual({ discoverable: 1 });
    }
    expect(result.joinTargets.length).toBe(1_000);
    expect(result.joinTargets).not.toContain(result.bigResourceId);
    const targets = new Set(result.joinTargets);
    expect(result.sampleMemberships.length).toBe(10_000);
    const memberUsers = new Set<string>();
    for (const { userId, resourceId } of result.sampleMemberships) {
      expect(active.get(resourceId, userId)).toEqual({ state: "active" });
      expect(targets.has(resourceId)).toBe(false);
      memberUsers.add(userId);
    }
    expect(new Set(result.users)).toEqual(memberUsers);
  });

  test("deterministic: a second seed gives the same rows and samples", async () => {
    const path = join(dir, "b.db");
    const again = await seedResources({
      path,
      appId: "app1",
      resources: RESOURCES,
      memberships: MEMBERSHIPS,
      users: USERS,
      bigResourceMembers: BIG,
      rareCount: RARE,
    });
    expect({ ...again, seconds: 0 }).toEqual({ ...result, seconds: 0 });
    const other = new Database(path, { readonly: true });
    const digest = (d: Database) =>
      `${Bun.hash(JSON.stringify(d.query("SELECT * FROM resources ORDER BY seq").all()))}:` +
      `${Bun.hash(JSON.stringify(d.query("SELECT * FROM members ORDER BY resource_id, user_id").all()))}`;
    expect(digest(other)).toBe(digest(db));
    other.close();
  });
});
