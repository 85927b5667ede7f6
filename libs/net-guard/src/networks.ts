import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** One IPv4 or IPv6 range, parsed once by ipaddr.js so a check per connection only compares bits. */
export interface Cidr {
  text: string;
  family: 4 | 6;
  range: [IpAddress, number];
}

/**
 * An address as the guard reads it: only the standard spellings (`net.isIP`: dotted-quad IPv4,
 * any IPv6 form, a zone id allowed) — ipaddr.js alone would also take `0x7f.1` or `2130706433`,
 * which a URL parser or the resolver has already turned into dotted form before they get here.
 * The zone id is dropped: it picks an interface, not an address.
 */
export const parseAddress = (text: string): IpAddress | null => {
  const plain = text.replace(/^\[|\]$/g, '');
  const family = isIP(plain);
  if (family === 4) return ipaddr.IPv4.parse(plain);
  if (family !== 6) return null;
  // ipaddr.js reads the deprecated `::a.b.c.d` (IPv4-compatible, ::7f00:1) as IPv4-mapped
  // (::ffff:7f00:1), which would let an exempt 127.0.0.0/8 pass an address the kernel does not
  // treat as 127.0.0.1. The URL parser's serialization (all hex, RFC 5952) is exact; ipaddr.js
  // reads that form as written.
  try {
    const hex = new URL(`http://[${plain.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
    return ipaddr.IPv6.parse(hex);
  } catch {
    return null; // not read the same way by both parsers: not an address the guard passes
  }
};

/**
 * An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, also written `::ffff:7f00:1`) is the IPv4
 * address it carries: the kernel connects to that IPv4 host.
 */
export const unmap = (addr: IpAddress): IpAddress =>
  addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;

/**
 * `10.0.0.0/8`, `fd00::/8`, or a bare address (a /32 or /128). An IPv4-mapped range
 * (`::ffff:127.0.0.0/104`) is read as the IPv4 range it maps, like the addresses it is matched
 * against.
 */
export const parseCidr = (text: string): Cidr | null => {
  const trimmed = text.trim();
  const [addrText, bitsText, extra] = trimmed.split('/');
  if (!addrText || extra !== undefined || (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText))) return null;
  const parsed = parseAddress(addrText);
  if (!parsed || addrText.includes('%')) return null;
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (bits > max) return null;
  const addr = unmap(parsed);
  if (addr !== parsed) {
    if (bits < 96) return null; // wider than the mapped block: not an IPv4 range
    return { text: trimmed, family: 4, range: [addr, bits - 96] };
  }
  return { text: trimmed, family: addr.kind() === 'ipv4' ? 4 : 6, range: [addr, bits] };
};

/** Whether an address (any spelling `parseAddress` takes, mapped ones unmapped) lies in a range. */
export const cidrContains = (cidr: Cidr, ip: string | IpAddress): boolean => {
  const parsed = typeof ip === 'string' ? parseAddress(ip) : ip;
  if (!parsed) return false;
  const addr = unmap(parsed);
  return addr.kind() === cidr.range[0].kind() && addr.match(cidr.range);
};

/** FETCH_ALLOW_NETWORKS: comma-separated CIDRs exempt from the fetch guard's refused ranges. */
export const allowNetworksSchema = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const out: Cidr[] = [];
    for (const item of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const cidr = parseCidr(item);
      if (!cidr) ctx.addIssue({ code: 'custom', message: `"${item}" is not a CIDR` });
      else out.push(cidr);
    }
    return out;
  });

/** One FETCH_HOST_MAP entry: `host` or `*.domain` sent to `ip:port`. */
export interface HostRoute {
  pattern: string;
  address: string;
  port: number;
}

/** FETCH_HOST_MAP: `host=ip:port` pairs, comma-separated, `*.domain` allowed (the test web). */
export const hostMapSchema = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const out: HostRoute[] = [];
    for (const item of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^(\*\.)?([a-z0-9.-]+)=(\[[0-9a-f:.]+\]|[0-9.]+):(\d{1,5})$/i.exec(item);
      const address = m?.[3]?.replace(/^\[|\]$/g, '');
      if (!m || !address || !isIP(address) || Number(m[4]) > 65535) {
        ctx.addIssue({ code: 'custom', message: `"${item}" is not host=ip:port` });
        continue;
      }
      out.push({ pattern: (m[1] ?? '') + m[2]!.toLowerCase(), address, port: Number(m[4]) });
    }
    return out;
  });

/** The route for a host name, exact names before wildcards; undefined when it is not mapped. */
export const routeForHost = (routes: HostRoute[], host: string): HostRoute | undefined => {
  const h = host.toLowerCase().replace(/\.$/, '');
  return (
    routes.find((r) => r.pattern === h) ??
    routes.find((r) => r.pattern.startsWith('*.') && h.endsWith(r.pattern.slice(1)))
  );
};

/** The fetch guard's settings, read by every service that connects to an address a user gave. */
export const fetchGuardEnv = z.object({
  FETCH_ALLOW_NETWORKS: allowNetworksSchema,
  FETCH_HOST_MAP: hostMapSchema,
});
