/**
 * Who the client is behind a trusted proxy: the rightmost X-Forwarded-For hop that is not a trusted
 * proxy; hops a client wrote (left of it) are never believed; an untrusted peer's header is ignored.
 */
import { expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { TrustedProxies } from "../../src/server/http/trusted-proxies.ts";

const proxies = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8 ,fd00::/8");

test("addresses and CIDR ranges, IPv4 and IPv6 (IPv4-mapped IPv6 included)", () => {
  expect(proxies.entries).toEqual(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  for (const address of ["127.0.0.1", "10.200.3.4", "fd12::1", "::ffff:10.1.2.3"])
    expect([address, proxies.trusts(address)]).toEqual([address, true]);
  for (const address of ["127.0.0.2", "11.0.0.1", "fe80::1", "::1", "garbage", ""])
    expect([address, proxies.trusts(address)]).toEqual([address, false]);
});

test("the rightmost hop that is not a trusted proxy is the client", () => {
  const cases: Array<[string, string | null, string]> = [
    // A peer that is not a trusted proxy is the client, whatever it claims.
    ["203.0.113.9", "198.51.100.1", "203.0.113.9"],
    // One trusted proxy: the address it appended.
    ["127.0.0.1", "198.51.100.1", "198.51.100.1"],
    // The client wrote its own X-Forwarded-For; the proxy appended the real one (a second header line
    // arrives joined with ", ").
    ["127.0.0.1", "1.2.3.4, 198.51.100.1", "198.51.100.1"],
    // Two trusted proxies in a row are skipped.
    ["127.0.0.1", "1.2.3.4, 198.51.100.1, 10.1.1.1", "198.51.100.1"],
    // Every hop trusted: the leftmost.
    ["127.0.0.1", "10.0.0.5, 10.0.0.6", "10.0.0.5"],
    // No header: the proxy itself.
    ["127.0.0.1", null, "127.0.0.1"],
    // A hop that is not an address stops at the trusted proxy that wrote it.
    ["127.0.0.1", "198.51.100.1, unknown", "127.0.0.1"],
    ["127.0.0.1", "junk, 10.0.0.7", "10.0.0.7"],
    ["127.0.0.1", "2001:db8::1", "2001:db8::1"],
  ];
  for (const [peer, header, client] of cases)
    expect([peer, header, proxies.clientOf(peer, header)]).toEqual([peer, header, client]);
});

test("TRUSTED_PROXIES is off by default and parsed at start-up", () => {
  expect(loadConfig({}).trustedProxies).toBeUndefined();
  expect(loadConfig({ TRUSTED_PROXIES: " " }).trustedProxies).toBeUndefined();
  expect(loadConfig({ TRUSTED_PROXIES: "127.0.0.1,::1" }).trustedProxies?.entries).toEqual([
    "127.0.0.1",
    "::1",
  ]);
  expect(() => loadConfig({ TRUSTED_PROXIES: "10.0.0.0/40" })).toThrow(
    'configuration error: TRUSTED_PROXIES must be IP addresses or CIDR ranges, comma-separated: "10.0.0.0/40" has a prefix longer than 32 bits',
  );
});
