import { isIP } from 'node:net';
import { z } from 'zod';

/** One IPv4 or IPv6 CIDR, parsed once so the guard only compares numbers per fetch. */
export interface Cidr {
  text: string;
  family: 4 | 6;
  base: bigint;
  bits: number;
}

const ipToBigInt = (ip: string): { family: 4 | 6; value: bigint } | null => {
  const family = isIP(ip);
  if (family === 4) {
    const parts = ip.split('.').map(Number);
    return { family: 4, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
  }
  if (family === 6) {
    // Expand "::" and a trailing dotted IPv4 part into eight 16-bit groups.
    let text = ip.toLowerCase();
    const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (v4?.[1]) {
      const n = ipToBigInt(v4[1])!.value;
      text = text.slice(0, -v4[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
    }
    const [head, tail] = text.split('::') as [string, string | undefined];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n) };
  }
  return null;
};

export const parseCidr = (text: string): Cidr | null => {
  const [addr, bitsText] = text.trim().split('/');
  const ip = addr ? ipToBigInt(addr) : null;
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) return null;
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(max - bits);
  return { text: text.trim(), family: ip.family, base: ip.value & mask, bits };
};

export const cidrContains = (cidr: Cidr, ip: string): boolean => {
  const parsed = ipToBigInt(ip);
  if (!parsed || parsed.family !== cidr.family) return false;
  const max = cidr.family === 4 ? 32 : 128;
  const mask = cidr.bits === 0 ? 0n : ((1n << BigInt(cidr.bits)) - 1n) << BigInt(max - cidr.bits);
  return (parsed.value & mask) === cidr.base;
};

/** FETCH_ALLOW_NETWORKS: comma-separated CIDRs exempt from the private-address guard. */
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
