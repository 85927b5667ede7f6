import ipaddr from 'ipaddr.js';
import { parseAddress, unmap, type Cidr, type IpAddress } from './networks.js';

/** A range the guard refuses, with what it is (the reason a refusal names). */
export interface RefusedRange {
  cidr: string;
  name: string;
  range: [IpAddress, number];
}

const table = (rows: [cidr: string, name: string][]): RefusedRange[] =>
  rows.map(([cidr, name]) => ({ cidr, name, range: ipaddr.parseCIDR(cidr) }));

/**
 * IPv4 ranges no user-given URL may reach (IANA special-purpose registry): this host, private,
 * shared, loopback, link-local (cloud metadata at 169.254.169.254), protocol assignments,
 * documentation, the 6to4 relay, benchmarking, multicast, reserved and broadcast. The first
 * match names the refusal, so the narrow ranges come before the wide ones.
 */
export const REFUSED_IPV4: readonly RefusedRange[] = table([
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private-use'],
  ['100.64.0.0/10', 'shared address space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private-use'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private-use'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

/**
 * IPv6 ranges refused outright. IPv4-mapped addresses (`::ffff:0:0/96`) never get here: they are
 * judged as the IPv4 address they carry. NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) are judged
 * by the IPv4 address they embed (`EMBEDDING`). Everything outside global unicast (`2000::/3`)
 * is refused as well, so a range missing from this list is not a way through.
 */
export const REFUSED_IPV6: readonly RefusedRange[] = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b:1::/48', 'NAT64 local-use'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

/** IPv6 prefixes that carry an IPv4 address the traffic ends up at: judged by that address. */
export const EMBEDDING: readonly (RefusedRange & { embedded: (parts: number[]) => number[] })[] = [
  // RFC 6052: the IPv4 address in the last 32 bits.
  { ...table([['64:ff9b::/96', 'NAT64']])[0]!, embedded: (p) => [p[6]! >> 8, p[6]! & 255, p[7]! >> 8, p[7]! & 255] },
  // RFC 3056: 2002:AABB:CCDD::/48 reaches AA.BB.CC.DD through a relay.
  { ...table([['2002::/16', '6to4']])[0]!, embedded: (p) => [p[1]! >> 8, p[1]! & 255, p[2]! >> 8, p[2]! & 255] },
];

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be reached, or null when it may. */
export type Refusal = { address: string; reason: string } | null;

const describe = (r: RefusedRange) => `${r.name} ${r.cidr}`;

/**
 * The one decision of the fetch guard, for an address in a standard spelling (a zone id allowed).
 *
 * 1. An IPv4-mapped IPv6 address is unmapped: it is the IPv4 host.
 * 2. FETCH_ALLOW_NETWORKS exempts the (unmapped) address when a range of its family holds it —
 *    so an allowed 127.0.0.0/8 also allows ::ffff:127.0.0.1, and no other spelling.
 * 3. IPv4: refused when in `REFUSED_IPV4`.
 * 4. IPv6: NAT64 and 6to4 are refused when the IPv4 address they embed is (no exemption applies
 *    to an embedded address); then `REFUSED_IPV6`; then anything outside 2000::/3.
 *
 * Text that is not an address is refused too: the guard never passes what it cannot read.
 */
export const judgeAddress = (text: string, allow: readonly Cidr[]): Refusal => {
  const parsed = parseAddress(text);
  if (!parsed) return { address: text, reason: 'not an IP address' };
  const addr = unmap(parsed);
  const v4 = addr.kind() === 'ipv4';
  if (allow.some((c) => c.range[0].kind() === addr.kind() && addr.match(c.range))) return null;
  const address = addr.toString();
  if (v4) {
    const hit = REFUSED_IPV4.find((r) => addr.match(r.range));
    if (!hit) return null;
    return { address, reason: parsed === addr ? describe(hit) : `IPv4-mapped ::ffff:0:0/96, ${describe(hit)}` };
  }
  const v6 = addr as ipaddr.IPv6;
  const carrier = EMBEDDING.find((e) => v6.match(e.range));
  if (carrier) {
    const inner = new ipaddr.IPv4(carrier.embedded(v6.parts));
    const hit = REFUSED_IPV4.find((r) => inner.match(r.range));
    return hit ? { address, reason: `${describe(carrier)} embedding ${inner.toString()}, ${describe(hit)}` } : null;
  }
  const hit = REFUSED_IPV6.find((r) => v6.match(r.range));
  if (hit) return { address, reason: describe(hit) };
  if (!v6.match(GLOBAL_UNICAST)) return { address, reason: 'outside global unicast 2000::/3' };
  return null;
};
