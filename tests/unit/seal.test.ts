import { describe, expect, test } from "bun:test";
import { keyringFrom } from "../../src/server/auth/keyring.ts";
import {
  CHUNK_SIZE,
  CookieSealer,
  chunkCookie,
  presentCookieNames,
  readSealedValues,
} from "../../src/server/auth/seal.ts";
import { Lru } from "../../src/server/lib/lru.ts";

const cookie = {
  sid: "s1",
  uid: "alice",
  cid: "web",
  at: "access-token-value",
  rt: "refresh-token-value",
  aexp: 1,
};

describe("sealed session cookie", () => {
  test("round-trips and hides the tokens", async () => {
    const sealer = new CookieSealer(await keyringFrom(["x".repeat(40)], "test"));
    const sealed = await sealer.seal(cookie);
    expect(sealed.split(".")).toHaveLength(5); // compact JWE
    expect(sealed).not.toContain("access-token-value");
    expect(atob(sealed.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).toBe(
      `{"alg":"dir","enc":"A256GCM","kid":"${sealer.currentKeyId}"}`,
    );
    expect(await sealer.unseal(sealed)).toEqual(cookie);
  });

  test("a tampered, foreign or garbage value is no cookie", async () => {
    const sealer = new CookieSealer(await keyringFrom(["x".repeat(40)], "test"));
    const other = new CookieSealer(await keyringFrom(["y".repeat(40)], "test"));
    const sealed = await sealer.seal(cookie);
    const parts = sealed.split(".");
    parts[3] = `${parts[3]!.slice(0, -2)}${parts[3]!.endsWith("AA") ? "BB" : "AA"}`;
    expect(await sealer.unseal(parts.join("."))).toBeNull();
    expect(await other.unseal(sealed)).toBeNull();
    expect(await sealer.unseal("garbage")).toBeNull();
    expect(await sealer.unseal("")).toBeNull();
  });

  test("values over 3,800 bytes are split into indexed chunks and read back", () => {
    const big = "a".repeat(CHUNK_SIZE * 2 + 10);
    const chunks = chunkCookie("sg", big);
    expect(chunks.map(([name]) => name)).toEqual(["sg_0", "sg_1", "sg_2"]);
    expect(chunks.every(([, value]) => value.length <= CHUNK_SIZE)).toBe(true);
    const header = chunks
      .reverse()
      .map(([name, value]) => `${name}=${value}`)
      .join("; ");
    expect(readSealedValues(`other=1; ${header}`, "sg")).toEqual([big]);
    expect(chunkCookie("sg", "small")).toEqual([["sg", "small"]]);
  });

  test("a missing chunk yields nothing; duplicates of one name are all offered", () => {
    expect(readSealedValues("sg_0=a; sg_2=c", "sg")).toEqual([]);
    expect(readSealedValues("sg=first; x=1; sg=second", "sg")).toEqual(["first", "second"]);
    expect(readSealedValues(null, "sg")).toEqual([]);
    expect(presentCookieNames("sg=1; sg_0=2; sgx=3; sg_1=4", "sg").sort()).toEqual(["sg", "sg_0", "sg_1"]);
    expect(presentCookieNames("__Host-sg=1; __Host-sg_3=2", "__Host-sg").sort()).toEqual([
      "__Host-sg",
      "__Host-sg_3",
    ]);
  });
});

describe("Lru", () => {
  test("keeps what is read, drops what is not, never holds more than its capacity, honours expiry", () => {
    const lru = new Lru<string, number>(10);
    lru.set("kept", 0);
    for (let i = 0; i < 100; i++) {
      lru.set(`k${i}`, i);
      expect(lru.get("kept")).toBe(0); // read between insertions: never dropped
      expect(lru.size).toBeLessThanOrEqual(10);
    }
    expect(lru.get("k0")).toBeUndefined(); // not read since: dropped
    expect(lru.get("k99")).toBe(99);
    lru.set("d", 4, 100);
    expect(lru.get("d", 99)).toBe(4);
    expect(lru.get("d", 100)).toBeUndefined();
    lru.set("e", 5, 100);
    for (let i = 0; i < 5; i++) lru.set(`x${i}`, i); // "e" is now in the old generation
    expect(lru.get("e", 100)).toBeUndefined();
    lru.delete("k99");
    expect(lru.get("k99")).toBeUndefined();
    lru.clear();
    expect(lru.size).toBe(0);
  });

  test("a capacity of 1 or 2 still caches the last entry", () => {
    for (const capacity of [1, 2]) {
      const lru = new Lru<string, number>(capacity);
      lru.set("a", 1);
      expect(lru.get("a")).toBe(1);
      lru.set("b", 2);
      expect(lru.get("b")).toBe(2);
      expect(lru.size).toBeLessThanOrEqual(capacity);
    }
  });
});
