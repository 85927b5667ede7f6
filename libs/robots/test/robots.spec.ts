import { describe, expect, it } from '@jest/globals';
import {
  MAX_ROBOTS_BYTES,
  normalizePath,
  parseRobots,
  patternMatches,
  productToken,
  robotsFromResponse,
} from '../src/index.js';
import { matchPattern } from '../src/match.js';

const UA = 'Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://tidemark.dev/bot)';
const allowed = (text: string, url: string, ua = UA) => parseRobots(text, ua).isAllowed(url);

describe('productToken', () => {
  it('reads the token from a compatible user agent, a plain one and a bare token', () => {
    expect(productToken(UA)).toBe('tidemarkbot');
    expect(productToken('Googlebot/2.1 (+http://www.google.com/bot.html)')).toBe('googlebot');
    expect(productToken('TidemarkBot')).toBe('tidemarkbot');
  });
});

describe('parseRobots: groups', () => {
  const text = [
    'User-agent: *',
    'Disallow: /private/',
    '',
    'User-agent: tidemarkbot',
    'Disallow: /drafts/',
    '',
    'User-agent: OtherBot',
    'Disallow: /',
  ].join('\n');

  it('applies the group naming our product token, case-insensitively, and ignores *', () => {
    expect(allowed(text, 'https://s.example/drafts/a')).toBe(false);
    expect(allowed(text, 'https://s.example/private/a')).toBe(true);
    expect(parseRobots(text, UA).matchedAgent).toBe(true);
  });

  it('falls back to * when no group names us', () => {
    expect(allowed(text, 'https://s.example/private/a', 'NobodyBot/1.0')).toBe(false);
    expect(allowed(text, 'https://s.example/drafts/a', 'NobodyBot/1.0')).toBe(true);
    expect(parseRobots(text, 'NobodyBot').matchedAgent).toBe(false);
  });

  it('allows everything when no group applies at all', () => {
    expect(allowed('User-agent: OtherBot\nDisallow: /', 'https://s.example/x')).toBe(true);
  });

  it('merges every group that names us, and consecutive user-agent lines share one group', () => {
    const merged = [
      'User-agent: TidemarkBot',
      'Disallow: /a/',
      'User-agent: other',
      'Disallow: /b/',
      'User-agent: somebot',
      'User-agent: TidemarkBot/2.0',
      'Disallow: /c/',
    ].join('\n');
    expect(['/a/1', '/b/1', '/c/1'].map((p) => allowed(merged, p))).toEqual([false, true, false]);
  });

  it('ignores rules before the first user-agent line, and unknown keys do not end a group', () => {
    const text2 = 'Disallow: /early/\nUser-agent: *\nNoindex: /x\nDisallow: /late/';
    expect(allowed(text2, '/early/1')).toBe(true);
    expect(allowed(text2, '/late/1')).toBe(false);
  });

  it('reads comments, CRLF, a BOM, spacing and common misspellings', () => {
    const text3 = '\uFEFFuser-agent : *   # everyone\r\n  DISALLOW:/a # no\r\ndissallow: /b\r\n';
    expect(allowed(text3, '/a')).toBe(false);
    expect(allowed(text3, '/b')).toBe(false);
    expect(allowed(text3, '/c')).toBe(true);
  });

  it('treats an empty Disallow as no rule', () => {
    expect(allowed('User-agent: *\nDisallow:', '/anything')).toBe(true);
  });
});

describe('parseRobots: matching', () => {
  it('lets the longest match win', () => {
    const text = 'User-agent: *\nDisallow: /shop/\nAllow: /shop/public/\nDisallow: /shop/public/secret';
    expect(allowed(text, '/shop/cart')).toBe(false);
    expect(allowed(text, '/shop/public/list')).toBe(true);
    expect(allowed(text, '/shop/public/secret-plans')).toBe(false);
  });

  it('lets Allow win a tie of equal length, whatever the order', () => {
    expect(allowed('User-agent: *\nDisallow: /page\nAllow: /page', '/page')).toBe(true);
    expect(allowed('User-agent: *\nAllow: /page\nDisallow: /page', '/page')).toBe(true);
    expect(allowed('User-agent: *\nAllow: /pag*\nDisallow: /page', '/page')).toBe(true);
  });

  it('reads * as any run of characters and a final $ as the end of the path', () => {
    const text = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /*/print\nAllow: /$\nDisallow: /';
    expect(allowed(text, '/')).toBe(true);
    expect(allowed(text, '/docs/a.pdf')).toBe(false);
    expect(allowed(text, '/x')).toBe(false);
    expect(patternMatches('/*.pdf$', '/docs/a.pdf?x=1')).toBe(false);
    expect(patternMatches('/*.pdf$', '/a.pdf')).toBe(true);
    expect(patternMatches('/*/print', '/a/b/print/c')).toBe(true);
    expect(patternMatches('/a$b', '/a$bc')).toBe(true); // a $ inside the pattern is literal
    expect(patternMatches('/fish*', '/fish')).toBe(true);
    expect(patternMatches('/fish', '/Fish')).toBe(false); // paths are case-sensitive
  });

  it('matches the query too, never the fragment', () => {
    const text = 'User-agent: *\nDisallow: /*?sort=';
    expect(allowed(text, 'https://s.example/list?sort=asc')).toBe(false);
    expect(allowed(text, 'https://s.example/list#?sort=asc')).toBe(true);
  });

  it('normalizes percent-encoding on both sides (RFC 9309 §2.2.2)', () => {
    expect(normalizePath('/foo/bar/ツ')).toBe('/foo/bar/%E3%83%84');
    expect(normalizePath('/foo/%62%61%7a')).toBe('/foo/baz');
    expect(normalizePath('/a%2fb')).toBe('/a%2Fb');
    expect(normalizePath('/emoji/😀')).toBe('/emoji/%F0%9F%98%80');
    expect(allowed('User-agent: *\nDisallow: /foo/bar/ツ', 'https://s.example/foo/bar/%E3%83%84')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /foo/%62%61%7A', '/foo/baz/1')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a%2Fb', '/a/b')).toBe(true);
  });

  it('always allows /robots.txt', () => {
    expect(allowed('User-agent: *\nDisallow: /', 'https://s.example/robots.txt')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /', 'https://s.example/')).toBe(false);
  });

  it('answers false for something that is not a URL', () => {
    expect(allowed('', 'not a url')).toBe(false);
  });

  it('stays linear on a pattern built to backtrack', () => {
    const pattern = `/${'*a'.repeat(200)}$`;
    const path = (n: number) => `/${'a'.repeat(n)}b`;
    expect(allowed(`User-agent: *\nDisallow: ${pattern}`, path(2000))).toBe(true);
    // The walk's steps, not a clock: within pattern × path, and twice the path no more than
    // twice the work (a backtracking matcher's grows combinatorially with both).
    const steps = (n: number) => matchPattern(pattern, path(n)).steps;
    expect(steps(2000)).toBeLessThanOrEqual(pattern.length * path(2000).length);
    expect(steps(4000)).toBeLessThanOrEqual(2 * steps(2000) + pattern.length);
  });
});

describe('parseRobots: sitemaps, crawl-delay and size', () => {
  it('collects Sitemap lines anywhere in the file, absolute, once each', () => {
    const text = [
      'Sitemap: https://s.example/a.xml',
      'User-agent: *',
      'Disallow: /x',
      'sitemap: https://s.example/b.xml # comment',
      'User-agent: other',
      'Sitemap: https://s.example/a.xml',
      'Sitemap: /relative.xml',
      'Sitemap: ftp://s.example/c.xml',
    ].join('\n');
    expect(parseRobots(text, UA).sitemaps).toEqual(['https://s.example/a.xml', 'https://s.example/b.xml']);
    expect(parseRobots(text, UA, { baseUrl: 'https://s.example/robots.txt' }).sitemaps).toEqual([
      'https://s.example/a.xml',
      'https://s.example/b.xml',
      'https://s.example/relative.xml',
    ]);
  });

  it('reads the crawl-delay of the group that applies', () => {
    const text = 'User-agent: *\nCrawl-delay: 5\n\nUser-agent: TidemarkBot\nCrawl-delay: 0.5\nDisallow: /x';
    expect(parseRobots(text, UA).crawlDelaySeconds).toBe(0.5);
    expect(parseRobots(text, 'OtherBot').crawlDelaySeconds).toBe(5);
    expect(parseRobots('User-agent: *\nCrawl-delay: soon', UA).crawlDelaySeconds).toBeNull();
  });

  it('reads only the first 500 KiB', () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(Math.ceil(MAX_ROBOTS_BYTES / 1003));
    const text = `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\nSitemap: https://s.example/late.xml\n`;
    const rules = parseRobots(text, UA);
    expect(rules.isAllowed('/early')).toBe(false);
    expect(rules.isAllowed('/late')).toBe(true);
    expect(rules.sitemaps).toEqual([]);
  });
});

describe('robotsFromResponse', () => {
  const text = 'User-agent: *\nDisallow: /private/\nSitemap: https://s.example/s.xml';

  it('parses a 2xx', () => {
    const rules = robotsFromResponse(200, text, UA);
    expect([rules.mode, rules.isAllowed('/private/a'), rules.isAllowed('/a'), rules.sitemaps]).toEqual([
      'parsed',
      false,
      true,
      ['https://s.example/s.xml'],
    ]);
  });

  it.each([404, 403, 410, 401, 301])('allows everything on %i', (status) => {
    const rules = robotsFromResponse(status, text, UA);
    expect([rules.mode, rules.isAllowed('/private/a'), rules.sitemaps]).toEqual(['allow_all', true, []]);
  });

  it.each([500, 503, 429, null])('disallows everything but /robots.txt on %p', (status) => {
    const rules = robotsFromResponse(status, text, UA);
    expect([rules.mode, rules.isAllowed('/'), rules.isAllowed('/a'), rules.isAllowed('/robots.txt')]).toEqual([
      'disallow_all',
      false,
      false,
      true,
    ]);
  });
});
