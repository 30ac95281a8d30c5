/**
 * Fast, deterministic seeder for the resources & membership benchmarks, at the scale of the perf anchors
 * (the performance notes): 100k resources, 1M member rows (one owner + ~9 others each,
 * distinct random users out of 100k), names "<adjective> <noun> <n>" (4 adjectives at ~25% each, 1,000
 * nouns, `rareWord` in exactly `rareCount` names) for the FTS5 trigram index.
 *
 *   bun bench/seed-resources.ts <path> [appId]
 *
 * Everything is drawn from one seeded PRNG with a fixed clock (`END_MS`), so two runs with the same options
 * produce the same database. Resources are generated in `created_at` order, so `seq`, `created_at` and the
 * UUIDv7 `id` all grow together, as they would in production.
 *
 * Speed: `openSqlite` creates + migrates, then the load runs in one BEGIN IMMEDIATE transaction per table
 * with multi-row prepared INSERTs, durability and foreign keys off, the FTS insert trigger and the
 * `members_user` index dropped (rebuilt afterwards from their own `sqlite_master` SQL, so they are exactly
 * the migration's), then every PRAGMA is put back and the WAL is checkpointed.
 */
import type { Database } from "bun:sqlite";
import { openSqlite } from "../src/server/db/sqlite.ts";

export interface SeedOptions {
  path: string;
  appId: string;
  resources?: number /*100_000*/;
  memberships?: number /*1_000_000*/;
  users?: number /*100_000*/;
  rareWord?: string /*"quokka"*/;
  rareCount?: number /*20*/;
  bigResourceMembers?: number /*50*/;
}

export interface SeedResult {
  resourceIds: string[] /* a sample of 10k discoverable ids */;
  bigResourceId: string /* a resource with exactly bigResourceMembers active members */;
  users: string[] /* sample user ids that are ACTIVE members of sampleMemberships */;
  sampleMemberships: Array<{
    userId: string;
    resourceId: string;
  }> /* 10k (user, resource) pairs where the user is an active member */;
  joinTargets: string[] /* 1k discoverable resource ids the join/leave bench can use */;
  seconds: number;
}

/** The PRNG seed: fixed, so runs are comparable. */
export const SEED = 0x5eed_c0de;
/** The fixed "now" of the data: resources are spread over the 5 years before it. */
export const END_MS = Date.UTC(2026, 10, 1);
const SPAN_MS = Math.round(5 * 365.25 * 86_400_000);

export const ADJECTIVES = ["alpha", "bright", "crisp", "swift"] as const;
const NOUN_COUNT = 1_000;
const SAMPLE_RESOURCES = 10_000;
const SAMPLE_MEMBERSHIPS = 10_000;
const JOIN_TARGETS = 1_000;

const ROLE_NAMES = ["owner", "writer", "reader", "admin"] as const;
const ROLE_OWNER = 0;
const ROLE_WRITER = 1;
const ROLE_READER = 2;
const ROLE_ADMIN = 3;

/** Rows per multi-row INSERT (parameters per statement = rows × columns, far below SQLite's 32,766). */
const RESOURCE_BATCH = 200;
const MEMBER_BATCH = 500;

/** mulberry32: a tiny, fast, seeded 32-bit PRNG. `next()` is a uint32, `float()` is in [0, 1). */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  float(): number {
    return this.next() / 4_294_967_296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
}

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}

/** A UUIDv7 string: 48-bit ms timestamp, version 7, 12 random bits, variant 10, 62 random bits. */
export function uuidv7(ms: number, rng: Prng): string {
  const t = hex(ms, 12);
  const a = rng.next();
  const b = rng.next();
  const c = rng.next();
  return `${t.slice(0, 8)}-${t.slice(8)}-7${hex(a & 0xfff, 3)}-${hex(0x8000 | ((a >>> 12) & 0x3fff), 4)}-${hex(b, 8)}${hex(c & 0xffff, 4)}`;
}

/** The ms timestamp a UUIDv7 carries. */
export function uuidv7Time(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

export function userId(n: number): string {
  return `u${String(n).padStart(6, "0")}`;
}

/** `count` distinct pronounceable consonant-vowel words (CVCVC, like "muzid") containing none of `avoid`. */
function makeNouns(rng: Prng, count: number, avoid: string): string[] {
  const consonants = "bdfghklmnprstvz";
  const vowels = "aeiou";
  const pick = (s: string) => s[rng.int(s.length)] ?? "";
  const nouns = new Set<string>();
  while (nouns.size < count) {
    const word = pick(consonants) + pick(vowels) + pick(consonants) + pick(vowels) + pick(consonants);
    if (!word.includes(avoid)) nouns.add(word);
  }
  return [...nouns];
}

/** Up to `k` distinct values of `pool` in random order (partial Fisher-Yates; `pool` is shuffled in place). */
function sample(pool: Int32Array, k: number, rng: Prng): Int32Array {
  const n = Math.min(k, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + rng.int(pool.length - i);
    const tmp = pool[i]!;
    pool[i] = pool[j]!;
    pool[j] = tmp;
  }
  return pool.slice(0, n);
}

function indicesWhere(n: number, keep: (i: number) => boolean): Int32Array {
  const out = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) if (keep(i)) out[k++] = i;
  return out.slice(0, k);
}

/** A multi-row INSERT: `rows` copies of `tuple` after `head`. */
function batchInsert(sqlite: Database, head: string, tuple: string, rows: number) {
  return sqlite.prepare(`${head} VALUES ${Array.from({ length: rows }, () => tuple).join(",")}`);
}

function schemaSql(sqlite: Database, type: string, name: string): string {
  const row = sqlite.query("SELECT sql FROM sqlite_master WHERE type = ? AND name = ?").get(type, name) as {
    sql: string;
  } | null;
  if (!row) throw new Error(`seed: ${type} ${name} not found (migrations changed?)`);
  return row.sql;
}

export async function seedResources(options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const appId = options.appId;
  const R = options.resources ?? 100_000;
  const M = options.memberships ?? 1_000_000;
  const U = options.users ?? 100_000;
  const rareWord = options.rareWord ?? "quokka";
  const rareCount = options.rareCount ?? 20;
  const B = options.bigResourceMembers ?? 50;

  const others = M - R - (B - 1);
  if (R < 1 || U < 1 || B < 1) throw new Error("seed: resources, users and bigResourceMembers must be ≥ 1");
  if (B > U) throw new Error("seed: bigResourceMembers exceeds users");
  if (rareCount > R - 1 && rareCount > 0) throw new Error("seed: rareCount must be below resources");
  if (others < 0) throw new Error("seed: memberships must cover one owner per resource + the big resource");
  if (others > (R - 1) * (U - 1))
    throw new Error("seed: not enough distinct users for that many memberships");
  if (rareWord.length < 3) throw new Error("seed: rareWord needs ≥ 3 characters (the FTS index is trigram)");
  const rareLower = rareWord.toLowerCase();
  for (const adjective of ADJECTIVES) {
    if (adjective.includes(rareLower)) throw new Error(`seed: rareWord occurs in the adjective ${adjective}`);
  }

  const rng = new Prng(SEED);

  // ---- Resources, in created_at order (strictly increasing ms, so ids sort like seq). ----
  const createdAt = new Float64Array(R);
  for (let i = 0; i < R; i++) createdAt[i] = END_MS - SPAN_MS + rng.int(SPAN_MS);
  createdAt.sort();
  for (let i = 1; i < R; i++) if (createdAt[i]! <= createdAt[i - 1]!) createdAt[i] = createdAt[i - 1]! + 1;
  const ids: string[] = new Array(R);
  const owners = new Int32Array(R);
  const discoverable = new Uint8Array(R);
  for (let i = 0; i < R; i++) {
    ids[i] = uuidv7(createdAt[i]!, rng);
    owners[i] = 1 + rng.int(U);
    discoverable[i] = rng.float() < 0.8 ? 1 : 0;
  }
  const big = rng.int(R);
  discoverable[big] = 1;
  // The rare names go to discoverable resources (so a browse search finds all of them), never the big one.
  const rare = new Uint8Array(R);
  const rareCandidates = indicesWhere(R, (i) => i !== big && discoverable[i] === 1);
  if (rareCandidates.length < rareCount)
    throw new Error("seed: too few discoverable resources for rareCount");
  for (const i of sample(rareCandidates, rareCount, rng)) rare[i] = 1;
  const nouns = makeNouns(rng, NOUN_COUNT, rareLower);
  const names: string[] = new Array(R);
  for (let i = 0; i < R; i++) {
    const adjective = ADJECTIVES[rng.int(ADJECTIVES.length)]!;
    let name: string;
    if (rare[i]) name = `${adjective} ${rareWord} ${i + 1}`;
    else {
      do name = `${adjective} ${nouns[rng.int(nouns.length)]!} ${i + 1}`;
      while (name.toLowerCase().includes(rareLower));
    }
    names[i] = name;
  }

  // ---- How many non-owner members each resource gets: the big one exactly B-1, the rest at random. ----
  const extra = new Int32Array(R);
  extra[big] = B - 1;
  for (let k = 0; k < others; k++) {
    let r: number;
    do r = rng.int(R);
    while (r === big || extra[r]! >= U - 1);
    extra[r]!++;
  }

  // ---- Member rows, resource by resource (owner first), distinct users per resource. ----
  const memRes = new Int32Array(M);
  const memUser = new Int32Array(M);
  const memRole = new Uint8Array(M);
  const memCreated = new Float64Array(M);
  const memUpdated = new Float64Array(M);
  const stamp = new Int32Array(U + 1); // stamp[user] === r + 1: user already in resource r
  let m = 0;
  for (let r = 0; r < R; r++) {
    const created = createdAt[r]!;
    stamp[owners[r]!] = r + 1;
    memRes[m] = r;
    memUser[m] = owners[r]!;
    memRole[m] = ROLE_OWNER;
    memCreated[m] = created;
    memUpdated[m] = created;
    m++;
    for (let k = 0; k < extra[r]!; k++) {
      let u: number;
      do u = 1 + rng.int(U);
      while (stamp[u] === r + 1);
      stamp[u] = r + 1;
      const roll = rng.float();
      const joined = created + rng.int(END_MS - created);
      memRes[m] = r;
      memUser[m] = u;
      memRole[m] = roll < 0.8 ? ROLE_WRITER : roll < 0.95 ? ROLE_READER : ROLE_ADMIN;
      memCreated[m] = joined;
      memUpdated[m] = joined + rng.int(END_MS - joined);
      m++;
    }
  }
  if (m !== M) throw new Error(`seed: internal error, ${m} member rows for ${M}`);

  // ---- The samples the benches use. Join targets are kept apart from the read samples and the big one. ----
  const discoverableIdx = indicesWhere(R, (i) => discoverable[i] === 1);
  const resourceIds = Array.from(sample(discoverableIdx.slice(), SAMPLE_RESOURCES, rng), (i) => ids[i]!);
  const joinIdx = sample(
    indicesWhere(R, (i) => i !== big && discoverable[i] === 1),
    JOIN_TARGETS,
    rng,
  );
  const isJoinTarget = new Uint8Array(R);
  for (const i of joinIdx) isJoinTarget[i] = 1;
  const joinTargets = Array.from(joinIdx, (i) => ids[i]!);
  const memberPool = indicesWhere(M, (i) => isJoinTarget[memRes[i]!] === 0);
  const sampleMemberships = Array.from(sample(memberPool, SAMPLE_MEMBERSHIPS, rng), (i) => ({
    userId: userId(memUser[i]!),
    resourceId: ids[memRes[i]!]!,
  }));
  const users = [...new Set(sampleMemberships.map((p) => p.userId))];

  // ---- Load. ----
  const storage = openSqlite(options.path);
  const { sqlite } = storage;
  try {
    const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    const saved = {
      synchronous: pragma("synchronous"),
      foreign_keys: pragma("foreign_keys"),
      cache_size: pragma("cache_size"),
      temp_store: pragma("temp_store"),
    };
    const ftsTrigger = schemaSql(sqlite, "trigger", "resources_fts_insert");
    const membersUser = schemaSql(sqlite, "index", "members_user");
    const base = (sqlite.query("SELECT coalesce(max(seq), 0) AS n FROM resources").get() as { n: number }).n;

    sqlite.exec("PRAGMA synchronous = OFF");
    sqlite.exec("PRAGMA foreign_keys = OFF");
    sqlite.exec("PRAGMA cache_size = -262144");
    sqlite.exec("PRAGMA temp_store = MEMORY");
    try {
      sqlite
        .transaction(() => {
          sqlite.exec("DROP TRIGGER resources_fts_insert");
          sqlite.exec("DROP INDEX members_user");

          const resHead =
            "INSERT INTO resources (seq, id, app_id, type, name, name_fold, visibility, discoverable, owner_id, member_count, created_at)";
          const resTuple = "(?,?,?,?,?,?,?,?,?,?,?)";
          const resBatch = batchInsert(sqlite, resHead, resTuple, RESOURCE_BATCH);
          const resOne = batchInsert(sqlite, resHead, resTuple, 1);
          const params: (string | number)[] = [];
          const resRow = (i: number) => {
            const d = discoverable[i] === 1;
            params.push(
              base + i + 1,
              ids[i]!,
              appId,
              d ? "album" : "team",
              names[i]!,
              names[i]!.toLowerCase(),
              d ? "public" : "members",
              d ? 1 : 0,
              userId(owners[i]!),
              1 + extra[i]!,
              createdAt[i]!,
            );
          };
          let i = 0;
          for (; i + RESOURCE_BATCH <= R; i += RESOURCE_BATCH) {
            params.length = 0;
            for (let k = 0; k < RESOURCE_BATCH; k++) resRow(i + k);
            resBatch.run(...params);
          }
          for (; i < R; i++) {
            params.length = 0;
            resRow(i);
            resOne.run(...params);
          }

          const memHead =
            "INSERT INTO members (resource_id, user_id, app_id, role, state, invited_by, created_at, updated_at)";
          const memTuple = "(?,?,?,?,'active',NULL,?,?)";
          const memBatch = batchInsert(sqlite, memHead, memTuple, MEMBER_BATCH);
          const memOne = batchInsert(sqlite, memHead, memTuple, 1);
          const userIds: string[] = new Array(U + 1);
          for (let u = 1; u <= U; u++) userIds[u] = userId(u);
          const memRow = (j: number) => {
            params.push(
              ids[memRes[j]!]!,
              userIds[memUser[j]!]!,
              appId,
              ROLE_NAMES[memRole[j]!]!,
              memCreated[j]!,
              memUpdated[j]!,
            );
          };
          let j = 0;
          for (; j + MEMBER_BATCH <= M; j += MEMBER_BATCH) {
            params.length = 0;
            for (let k = 0; k < MEMBER_BATCH; k++) memRow(j + k);
            memBatch.run(...params);
          }
          for (; j < M; j++) {
            params.length = 0;
            memRow(j);
            memOne.run(...params);
          }

          sqlite.exec(membersUser);
          sqlite.exec("INSERT INTO resources_fts(resources_fts) VALUES('rebuild')");
          sqlite.exec(ftsTrigger);
        })
        .immediate();
    } finally {
      sqlite.exec(`PRAGMA synchronous = ${saved.synchronous}`);
      sqlite.exec(`PRAGMA foreign_keys = ${saved.foreign_keys}`);
      sqlite.exec(`PRAGMA cache_size = ${saved.cache_size}`);
      sqlite.exec(`PRAGMA temp_store = ${saved.temp_store}`);
    }
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    await storage.close();
  }

  return {
    resourceIds,
    bigResourceId: ids[big]!,
    users,
    sampleMemberships,
    joinTargets,
    seconds: (performance.now() - started) / 1000,
  };
}

if (import.meta.main) {
  const path = process.argv[2];
  if (!path) {
    console.error("usage: bun bench/seed-resources.ts <path> [appId]");
    process.exit(2);
  }
  const options: SeedOptions = { path, appId: process.argv[3] ?? "bench" };
  const result = await seedResources(options);
  const mb = (Bun.file(path).size / 1e6).toFixed(1);
  console.log(
    `seeded ${(options.resources ?? 100_000).toLocaleString("en")} resources + ` +
      `${(options.memberships ?? 1_000_000).toLocaleString("en")} memberships into ${path} ` +
      `in ${result.seconds.toFixed(2)} s (${mb} MB); big resource ${result.bigResourceId}`,
  );
}
