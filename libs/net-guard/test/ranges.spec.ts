import { describe, expect, it } from '@jest/globals';
import { FetchGuard, judgeAddress, parseCidr, REFUSED_IPV4, REFUSED_IPV6, type Cidr } from '../src/index.js';

const nets = (...cidrs: string[]): Cidr[] => cidrs.map((c) => parseCidr(c)!);
const refused = (ip: string, allow: Cidr[] = []) => judgeAddress(ip, allow)?.reason ?? 'allowed';

/** The address a URL's host becomes after WHATWG parsing (what got, node:http and Chromium use). */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

describe('the range table', () => {
  it.each([
    ['0.0.0.0', /this network 0\.0\.0\.0\/8/],
    ['0.1.2.3', /this network/],
    ['10.0.0.1', /private-use 10\.0\.0\.0\/8/],
    ['100.64.0.1', /shared address space 100\.64\.0\.0\/10/],
    ['100.127.255.254', /shared address space/],
    ['127.0.0.1', /loopback 127\.0\.0\.0\/8/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local 169\.254\.0\.0\/16/],
    ['172.16.0.1', /private-use 172\.16\.0\.0\/12/],
    ['172.31.255.1', /private-use/],
    ['192.0.0.8', /IETF protocol assignments 192\.0\.0\.0\/24/],
    ['192.0.2.1', /documentation/],
    ['192.88.99.1', /6to4 relay anycast/],
    ['192.168.1.1', /private-use 192\.168\.0\.0\/16/],
    ['198.18.0.1', /benchmarking 198\.18\.0\.0\/15/],
    ['198.19.255.1', /benchmarking/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['224.0.0.1', /multicast 224\.0\.0\.0\/4/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved 240\.0\.0\.0\/4/],
    ['255.255.255.255', /broadcast 255\.255\.255\.255\/32/],
  ])('refuses IPv4 %s', (ip, reason) => {
    expect(refused(ip)).toMatch(reason);
  });

  it.each([
    ['::', /unspecified ::\/128/],
    ['::1', /loopback ::1\/128/],
    ['::7f00:1', /IPv4-compatible ::\/96/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::a00:1', /IPv4-compatible/],
    ['::ffff:0:7f00:1', /IPv4-translated/],
    ['64:ff9b:1::a00:1', /NAT64 local-use 64:ff9b:1::\/48/],
    ['64:ff9b:1:ffff::1', /NAT64 local-use/],
    ['100::1', /discard-only/],
    ['2001::1', /Teredo 2001::\/32/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['2001:2::1', /IETF protocol assignments 2001::\/23/],
    ['2001:db8::1', /documentation 2001:db8::\/32/],
    ['3fff::1', /documentation 3fff::\/20/],
    ['5f00::1', /segment routing/],
    ['fc00::1', /unique-local fc00::\/7/],
    ['fd12:3456::1', /unique-local/],
    ['fe80::1', /link-local fe80::\/10/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local fec0::\/10/],
    ['ff02::1', /multicast ff00::\/8/],
    ['ff0e::1', /multicast/],
    ['4000::1', /outside global unicast/],
    ['1::1', /outside global unicast/],
  ])('refuses IPv6 %s', (ip, reason) => {
    expect(refused(ip)).toMatch(reason);
  });

  it('lists the ranges issue 12 names, each refusing its own first address', () => {
    const v4 = REFUSED_IPV4.map((r) => r.cidr);
    for (const c of [
      '0.0.0.0/8',
      '100.64.0.0/10',
      '192.0.0.0/24',
      '198.18.0.0/15',
      '240.0.0.0/4',
      '255.255.255.255/32',
    ])
      expect(v4).toContain(c);
    const v6 = REFUSED_IPV6.map((r) => r.cidr);
    for (const c of [
      '::/128',
      '::1/128',
      '::/96',
      '64:ff9b:1::/48',
      '2001::/32',
      'fc00::/7',
      'fe80::/10',
      'fec0::/10',
      'ff00::/8',
    ])
      expect(v6).toContain(c);
    for (const r of [...REFUSED_IPV4, ...REFUSED_IPV6])
      expect([r.cidr, refused(r.range[0].toString())]).not.toEqual([r.cidr, 'allowed']);
  });

  it('lets public addresses of both families through', () => {
    for (const ip of [
      '93.184.215.14',
      '1.1.1.1',
      '8.8.8.8',
      '100.63.255.255',
      '100.128.0.0',
      '172.32.0.1',
      '198.20.0.1',
      '223.255.255.255',
    ])
      expect([ip, refused(ip)]).toEqual([ip, 'allowed']);
    for (const ip of ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888'])
      expect([ip, refused(ip)]).toEqual([ip, 'allowed']);
  });

  it('refuses what is not an address', () => {
    for (const text of ['', 'example.com', '0x7f.1', '2130706433', '127.1', '::ffff:127.0.0.1.', '1.2.3.4.5'])
      expect(refused(text)).toBe('not an IP address');
  });
});

describe('IPv6 spellings that embed an IPv4 address', () => {
  it.each([
    // IPv4-mapped, dotted and hex (Node's URL parser writes the hex form), full and compressed.
    ['::ffff:127.0.0.1', /IPv4-mapped ::ffff:0:0\/96, loopback/],
    ['::ffff:7f00:1', /IPv4-mapped.*loopback/],
    ['::ffff:7f00:2', /IPv4-mapped.*loopback/],
    ['::ffff:0:0', /IPv4-mapped.*this network/],
    ['::ffff:0.0.0.0', /IPv4-mapped.*this network/],
    ['0:0:0:0:0:ffff:a00:1', /IPv4-mapped.*private-use/],
    ['::FFFF:A9FE:A9FE', /IPv4-mapped.*link-local/],
    ['::ffff:ffff:ffff', /IPv4-mapped.*broadcast/],
    ['::ffff:6440:1', /IPv4-mapped.*shared address space/],
    // NAT64 well-known prefix and 6to4: judged by the IPv4 address inside.
    ['64:ff9b::7f00:1', /NAT64 64:ff9b::\/96 embedding 127\.0\.0\.1, loopback/],
    ['64:ff9b::10.0.0.1', /NAT64.*embedding 10\.0\.0\.1, private-use/],
    ['64:ff9b::a9fe:a9fe', /NAT64.*169\.254\.169\.254, link-local/],
    ['2002:7f00:1::', /6to4 2002::\/16 embedding 127\.0\.0\.1, loopback/],
    ['2002:c0a8:101::1', /6to4.*192\.168\.1\.1, private-use/],
    ['2002:a9fe:a9fe:1::5', /6to4.*link-local/],
    ['2002:0:0::1', /6to4.*this network/],
  ])('refuses %s', (ip, reason) => {
    expect(refused(ip)).toMatch(reason);
  });

  it('passes NAT64 and 6to4 addresses of public IPv4 hosts (an IPv6-only network reaches the web through them)', () => {
    expect(refused('64:ff9b::5db8:d70e')).toBe('allowed');
    expect(refused('2002:5db8:d70e::1')).toBe('allowed');
    expect(refused('::ffff:5db8:d70e')).toBe('allowed');
  });
});

describe('every spelling of one IPv4 address gets its verdict', () => {
  // A seeded generator (mulberry32): the same 5,000 addresses on every run.
  let seed = 0x5eed1234;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  // Half the draws from the special ranges (where a mistake would matter), half from anywhere.
  const special = REFUSED_IPV4.map((r) => r.range[0].toByteArray());
  const draw = (): number[] => {
    const bytes = Array.from({ length: 4 }, () => Math.floor(rand() * 256));
    if (rand() < 0.5) bytes.splice(0, 2, ...special[Math.floor(rand() * special.length)]!.slice(0, 2));
    return bytes;
  };
  const hex = (b: number[]) => `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;

  it.each([
    ['no exemption', [] as Cidr[]],
    ['127.0.0.0/8 and 10.0.0.0/8 exempt', nets('127.0.0.0/8', '10.0.0.0/8')],
  ])('IPv4-mapped (dotted, hex, uncompressed) as the IPv4 address; other embeddings never exempt (%s)', (_, allow) => {
    for (let i = 0; i < 5000; i++) {
      const b = draw();
      const v4 = b.join('.');
      const verdict = judgeAddress(v4, allow) === null;
      for (const mapped of [`::ffff:${v4}`, `::ffff:${hex(b)}`, `0:0:0:0:0:ffff:${hex(b)}`])
        expect([mapped, judgeAddress(mapped, allow) === null]).toEqual([mapped, verdict]);
      const unexempt = judgeAddress(v4, []) === null;
      for (const embedded of [`64:ff9b::${hex(b)}`, `2002:${hex(b)}::1`])
        expect([embedded, judgeAddress(embedded, allow) === null]).toEqual([embedded, unexempt]);
      expect(judgeAddress(`::${hex(b)}`, allow)).not.toBeNull();
    }
  });
});

describe('FETCH_ALLOW_NETWORKS exemptions', () => {
  const loopback = nets('127.0.0.0/8');

  it('apply to the address after unmapping: an allowed 127.0.0.0/8 also allows ::ffff:127.0.0.1', () => {
    for (const ip of ['127.0.0.1', '127.0.0.2', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:2'])
      expect([ip, refused(ip, loopback)]).toEqual([ip, 'allowed']);
  });

  it('and nothing else: no other spelling of 127.0.0.1, no other range', () => {
    for (const ip of [
      '::1',
      '::7f00:1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '::ffff:0:7f00:1',
      '10.0.0.1',
      '::ffff:a00:1',
      '169.254.169.254',
      '0.0.0.0',
      '::',
    ])
      expect([ip, refused(ip, loopback)]).not.toEqual([ip, 'allowed']);
  });

  it('a single address exempts that address alone, in both spellings', () => {
    const one = nets('127.0.0.1/32');
    expect(refused('127.0.0.1', one)).toBe('allowed');
    expect(refused('::ffff:7f00:1', one)).toBe('allowed');
    expect(refused('127.0.0.2', one)).toMatch(/loopback/);
    expect(refused('::ffff:7f00:2', one)).toMatch(/IPv4-mapped.*loopback/);
  });

  it('IPv6 ranges exempt IPv6 addresses, a mapped range its IPv4 addresses', () => {
    expect(refused('::1', nets('::1/128'))).toBe('allowed');
    expect(refused('fd00::5', nets('fd00::/8'))).toBe('allowed');
    expect(refused('fe80::1', nets('fd00::/8'))).toMatch(/link-local/);
    expect(refused('64:ff9b::a00:1', nets('64:ff9b::/96'))).toBe('allowed');
    expect(refused('10.1.2.3', nets('::ffff:10.0.0.0/104'))).toBe('allowed');
    expect(refused('::ffff:a01:203', nets('::ffff:10.0.0.0/104'))).toBe('allowed');
    expect(refused('10.1.2.3', nets('::/0'))).toMatch(/private-use/);
  });
});

describe('URL host spellings, as the URL parser hands them to the guard', () => {
  const strict = new FetchGuard({ allowNetworks: [], hostMap: [] });
  const loopbackOnly = new FetchGuard({ allowNetworks: nets('127.0.0.1/32'), hostMap: [] });

  it.each([
    'http://[::ffff:0.0.0.0]:8080/',
    'http://[::ffff:0:0]/',
    'http://[::ffff:127.0.0.2]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001::1]/',
    'http://[::]/',
    'http://[::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://0/',
    'http://0x7f000002/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://100.64.0.1/',
    'http://192.0.0.1/',
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
  ])('refuses %s when saved and when sent', async (url) => {
    expect(strict.checkUrl(url)?.message).toMatch(/^refused by the fetch guard: /);
    const host = hostOf(url);
    if (!/localhost/i.test(host))
      await expect(strict.resolve(host, 80)).rejects.toThrow(/^refused by the fetch guard: /);
  });

  it('refuses the spellings of 127.0.0.2 even where 127.0.0.1 is exempt', async () => {
    for (const url of [
      'http://[::ffff:127.0.0.2]/',
      'http://[::ffff:7f00:2]/',
      'http://2130706434/',
      'http://0x7f.2/',
      'http://127.0.0.2./',
    ]) {
      expect([url, loopbackOnly.checkUrl(url)?.message]).toEqual([url, expect.stringMatching(/loopback/)]);
      await expect(loopbackOnly.resolve(hostOf(url), 80)).rejects.toThrow(/loopback/);
    }
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://localhost/',
    ]) {
      expect([url, loopbackOnly.checkUrl(url)]).toEqual([url, null]);
    }
  });

  it('leaves names to the send-time check and never throws on what is not a URL', () => {
    expect(strict.checkUrl('https://example.com/hook')).toBeNull();
    expect(strict.checkUrl('https://93.184.215.14/hook')).toBeNull();
    expect(strict.checkUrl('not a url')).toBeNull();
  });

  it('leaves a host-mapped name to the send-time check, which judges its mapped address', async () => {
    const mapped = new FetchGuard({
      allowNetworks: nets('127.0.0.1/32'),
      hostMap: [
        { pattern: 'ok.test', address: '127.0.0.1', port: 1 },
        { pattern: 'evil.test', address: '::ffff:127.0.0.2', port: 1 },
      ],
    });
    expect(mapped.checkUrl('http://ok.test/')).toBeNull();
    expect(mapped.checkUrl('http://evil.test/')).toBeNull();
    await expect(mapped.resolve('ok.test', 80)).resolves.toMatchObject({ address: '127.0.0.1', port: 1 });
    await expect(mapped.resolve('evil.test', 80)).rejects.toThrow(
      'refused by the fetch guard: evil.test resolves to a private or reserved address (IPv4-mapped ::ffff:0:0/96, loopback 127.0.0.0/8)',
    );
  });
});
