/**
 * Bearer checks behind the shipped HAProxy, across real processes: two replicas started with
 * TRUSTED_PROXIES=127.0.0.1 (HAProxy's address), real tokens from the development provider. Every
 * client reaches the replicas from HAProxy's address, so only X-Forwarded-For tells them apart: 50
 * first uses of valid tokens at once (25 per replica) are all answered; junk from one client (127.0.0.2)
 * never makes another (127.0.0.3) wait or fail, even when the junk claims to come from that other
 * client. Runs on both engines (the replicas share the suite's database).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Haproxy, startHaproxy } from "../helpers/haproxy.ts";
import { getFrom, type RawAnswer } from "../helpers/raw-http.ts";
import { type Replica, startReplicas } from "../helpers/replicas.ts";
import { type Stack, startStack, tokensOf } from "../helpers/stack.ts";

let stack: Stack;
let replicas: Replica[] = [];
let lb: Haproxy;

beforeAll(async () => {
  stack = await startStack();
  const appsFile = join(stack.dataDir, "apps.json");
  writeFileSync(appsFile, JSON.stringify(stack.apps));
  replicas = await startReplicas(
    {
      ...(process.env as Record<string, string>),
      ...stack.env,
      GATEWAY_CONFIG: appsFile,
      TRUSTED_PROXIES: "127.0.0.1",
      ACCESS_LOG: "false",
    },
    2,
  );
  lb = await startHaproxy([{ name: "public", servers: replicas.map((r) => r.host) }]);
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.kill()));
  await lb?.stop();
  await stack?.stop();
}, 30_000);

const introspections = () => stack.idp.calls.introspect ?? 0;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const users = (prefix: string, count: number) =>
  Promise.all(Array.from({ length: count }, async (_, i) => (await tokensOf(stack, `${prefix}-${i}`)).at));

test("50 first uses of valid tokens at once through HAProxy (25 per replica): every one 200", async () => {
  const tokens = await users("crowd", 50);
  const before = introspections();
  const answers = await Promise.all(
    tokens.map((token) => fetch(`${lb.urls.public}/v1/me`, { headers: bearer(token) })),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(new Set(answers.map((r) => r.headers.get("x-replica")))).toEqual(new Set(["r1", "r2"]));
  expect(introspections() - before).toBe(50);
}, 60_000);

test("junk from client A through HAProxy costs client B nothing, even junk claiming to be B", async () => {
  const [tokenB] = await users("client-b", 1);
  const url = `${lb.urls.public}/v1/me`;
  const before = introspections();
  // A sends 80 junk tokens at once, each with a forged X-Forwarded-For naming B: 40 reach each replica,
  // 20 per replica are asked at once and refused, the other 40 wait for A's credit to refill.
  let doneA = 0;
  const junkA: Array<Promise<RawAnswer>> = Array.from({ length: 80 }, () =>
    getFrom(
      "127.0.0.2",
      url,
      { ...bearer(`junk-${crypto.randomUUID()}`), "x-forwarded-for": "127.0.0.3" },
      30_000,
    ).then((answer) => {
      doneA++;
      return answer;
    }),
  );
  for (let i = 0; i < 1000 && introspections() - before < 40; i++) await Bun.sleep(10);

  // B, on another address, is answered at once: A's waiting junk is still waiting when B has its 200.
  const answerB = await getFrom("127.0.0.3", url, bearer(tokenB!));
  expect(answerB.status).toBe(200);
  expect(JSON.parse(answerB.body)).toMatchObject({ userId: "client-b-0", via: "bearer" });
  expect(doneA).toBeLessThan(80);

  // A is paced, never refused: every junk token gets the provider's answer, 401, and was asked once.
  const answersA = await Promise.all(junkA);
  expect(answersA.map((a) => a.status)).toEqual(Array(80).fill(401));
  expect(answersA.every((a) => JSON.parse(a.body).code === "unauthenticated")).toBe(true);
  expect(introspections() - before).toBe(81);
}, 60_000);
