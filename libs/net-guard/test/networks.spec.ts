import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseEnv } from '@tidemark/config';
import { cidrContains, fetchGuardEnv, parseCidr, routeForHost } from '../src/index.js';

describe('FETCH_ALLOW_NETWORKS', () => {
  it('parses IPv4 and IPv6 CIDRs and matches addresses inside them only', () => {
    const { FETCH_ALLOW_NETWORKS: nets } = parseEnv(fetchGuardEnv, {
      FETCH_ALLOW_NETWORKS: '127.0.0.0/8, ::1/128,10.1.2.0/24',
    });
    expect(nets.map((n) => n.text)).toEqual(['127.0.0.0/8', '::1/128', '10.1.2.0/24']);
    const allowed = (ip: string) => nets.some((n) => cidrContains(n, ip));
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('127.255.255.254')).toBe(true);
    expect(allowed('::1')).toBe(true);
    expect(allowed('10.1.2.200')).toBe(true);
    expect(allowed('10.1.3.1')).toBe(false);
    expect(allowed('169.254.169.254')).toBe(false);
    expect(allowed('::2')).toBe(false);
  });

  it('defaults to no exemption at all', () => {
    expect(parseEnv(fetchGuardEnv, {}).FETCH_ALLOW_NETWORKS).toEqual([]);
  });

  it('understands IPv4-mapped and compressed IPv6', () => {
    const v6 = parseCidr('fd00::/8')!;
    expect(cidrContains(v6, 'fd12:3456::1')).toBe(true);
    expect(cidrContains(v6, 'fe80::1')).toBe(false);
    // A mapped range is the IPv4 range it maps, and matches both spellings of its addresses.
    const mapped = parseCidr('::ffff:127.0.0.0/104')!;
    expect(mapped.family).toBe(4);
    expect(cidrContains(mapped, '::ffff:127.0.0.1')).toBe(true);
    expect(cidrContains(mapped, '::ffff:7f00:1')).toBe(true);
    expect(cidrContains(mapped, '127.0.0.1')).toBe(true);
    expect(cidrContains(mapped, '128.0.0.1')).toBe(false);
  });

  it('refuses what is not a standard address or prefix', () => {
    for (const bad of [
      '0x7f.0.0.1/8',
      '2130706433',
      '127.1/8',
      '10.0.0.0/8/8',
      '::ffff:0:0/95',
      'fe80::1%eth0/64',
      '10.0.0.0/-1',
    ])
      expect([bad, parseCidr(bad)]).toEqual([bad, null]);
  });

  it('lists every bad entry at once', () => {
    expect(() => parseEnv(fetchGuardEnv, { FETCH_ALLOW_NETWORKS: '10.0.0.0/33,nope', FETCH_HOST_MAP: 'x' })).toThrow(
      ConfigError,
    );
    try {
      parseEnv(fetchGuardEnv, { FETCH_ALLOW_NETWORKS: '10.0.0.0/33,nope', FETCH_HOST_MAP: 'x' });
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toContain('"10.0.0.0/33" is not a CIDR');
      expect(problems).toContain('"nope" is not a CIDR');
      expect(problems).toContain('"x" is not host=ip:port');
    }
  });
});

describe('FETCH_HOST_MAP', () => {
  const routes = parseEnv(fetchGuardEnv, {
    FETCH_HOST_MAP: 'news.test=127.0.0.1:8081,*.shop.test=127.0.0.1:8082,v6.test=[::1]:8083',
  }).FETCH_HOST_MAP;

  it('sends named hosts, wildcards and IPv6 targets to their address', () => {
    expect(routeForHost(routes, 'news.test')).toEqual({ pattern: 'news.test', address: '127.0.0.1', port: 8081 });
    expect(routeForHost(routes, 'NEWS.test.')).toMatchObject({ port: 8081 });
    expect(routeForHost(routes, 'a.b.shop.test')).toMatchObject({ port: 8082 });
    expect(routeForHost(routes, 'v6.test')).toMatchObject({ address: '::1', port: 8083 });
  });

  it('leaves other hosts alone, including the bare wildcard domain', () => {
    expect(routeForHost(routes, 'shop.test')).toBeUndefined();
    expect(routeForHost(routes, 'example.com')).toBeUndefined();
  });
});
