/**
 * Which peers may say who the client is (TRUSTED_PROXIES). Behind a reverse proxy every request comes
 * from the proxy's address, so a limit per client address would lump every client together, and one
 * client's junk would cost all the others. A listed proxy's `X-Forwarded-For` is believed: each proxy
 * appends the address it received the request from, so the hops are read from the right, trusted
 * proxies skipped, and the first address that is not one of them is the client. Everything left of it
 * was written by the client (or by a proxy not listed) and may be forged, so it is never read. A hop
 * that is not an address stops the walk at the trusted proxy that wrote it.
 *
 * Off by default: with no list, or from a peer not listed, the socket's address is the client whatever
 * its headers say. The PROXY protocol is not read: Bun's listener does not speak it.
 */
import { BlockList, isIP } from "node:net";

export class TrustedProxies {
  private constructor(
    private readonly list: BlockList,
    /** The entries as given ("10.0.0.0/8", "::1"), for messages. */
    readonly entries: readonly string[],
  ) {}

  /**
   * A comma-separated list of addresses and CIDR ranges, IPv4 or IPv6 ("127.0.0.1, 10.0.0.0/8, fd00::/8").
   * Throws a RangeError naming the first entry that is neither.
   */
  static parse(text: string): TrustedProxies {
    const list = new BlockList();
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const [address = "", prefix, ...rest] = entry.split("/");
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      if (family === 0 || rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix)))
        throw new RangeError(`"${entry}" is neither`);
      if (prefix !== undefined && Number(prefix) > bits)
        throw new RangeError(`"${entry}" has a prefix longer than ${bits} bits`);
      list.addSubnet(address, prefix === undefined ? bits : Number(prefix), family === 4 ? "ipv4" : "ipv6");
    }
    return new TrustedProxies(list, entries);
  }

  trusts(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? "ipv4" : "ipv6");
  }

  /** The client behind `peer` (the socket's address), given the request's X-Forwarded-For. */
  clientOf(peer: string, forwardedFor: string | null): string {
    let client = peer;
    if (!this.trusts(peer) || forwardedFor === null) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!.trim();
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!this.trusts(hop)) return client;
    }
    return client;
  }
}
