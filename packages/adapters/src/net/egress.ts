import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where the service may connect on a user's behalf (docs/security.md, "Outbound connections"):
 * never to loopback, private, link-local (cloud metadata lives there), shared, multicast or
 * reserved addresses, unless an administrator allowed the host. A name is resolved once, every
 * address it has is checked, and the connection goes to the checked address (no second lookup
 * that a rebinding DNS server could answer differently).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
  ["fd00:ec2::", 32], // AWS metadata over IPv6
] as const)
  blocked.addSubnet(network, prefix, "ipv6");

/** Whether an IP address is one the service must not reach for a user (IPv4-mapped IPv6 judged as IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isForbiddenAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** A refused destination: the message names the host, never what it would have answered. */
export class EgressRefused extends Error {
  constructor(host: string, reason: string) {
    super(`${host} is not an allowed destination: ${reason} (an administrator can allow a host; see docs/security.md)`);
    this.name = "EgressRefused";
  }
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export class EgressPolicy {
  constructor(
    /** Hosts (names or addresses) an administrator allowed, lower case. */
    private readonly allowedHosts: () => Promise<string[]>,
    private readonly resolve: Resolver = (host) => lookup(host, { all: true, verbatim: true }),
  ) {}

  /** The checked address to connect to for `host`. */
  async pin(host: string): Promise<string> {
    const name = host
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, "");
    const allowed = (await this.allowedHosts()).includes(name);
    const addresses = isIP(name) ? [{ address: name, family: isIP(name) }] : await this.resolve(name).catch(() => []);
    if (addresses.length === 0) throw new EgressRefused(host, "the name does not resolve");
    if (!allowed) {
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad) throw new EgressRefused(host, "it resolves to a loopback, private, link-local or reserved address");
    }
    return addresses[0]!.address;
  }

  /** Whether an administrator allowed the host. */
  async allows(host: string): Promise<boolean> {
    return (await this.allowedHosts()).includes(host.trim().toLowerCase());
  }
}
