import { describe, expect, it } from '@jest/globals';
import { lookupKeys, normalizeUrl } from '../src/frontier/normalize-url.js';

describe('normalizeUrl: the frontier dedupe key', () => {
  it.each([
    ['HTTP://Example.COM:80/a/', 'http://example.com/a'],
    ['https://example.com:443/', 'https://example.com/'],
    ['https://example.com:8443/x', 'https://example.com:8443/x'],
    ['https://example.com/a#part', 'https://example.com/a'],
    ['https://example.com/a/?', 'https://example.com/a'],
    ['https://example.com/s?b=2&a=1', 'https://example.com/s?a=1&b=2'],
    ['https://example.com/%7euser/%2fx', 'https://example.com/~user/%2Fx'],
    ['https://user:pw@example.com/', 'https://example.com/'],
    ['https://example.com/a///', 'https://example.com/a'],
    ['https://example.com///', 'https://example.com/'],
    // escaped dots are dot segments (WHATWG), an empty query and a bare "?" go, hosts as parsed
    ['https://example.com/a/%2E%2e/b/', 'https://example.com/b'],
    ['https://example.com/a?#x', 'https://example.com/a'],
    ['http://[::FFFF:127.0.0.1]:81/x/', 'http://[::ffff:7f00:1]:81/x'],
    ['https://BÜCHER.example/Ä', 'https://xn--bcher-kva.example/%C3%84'],
    ['https://e.com/s?q=a+b&p=%7e', 'https://e.com/s?p=%7E&q=a+b'],
    // many slashes within MAX_URL_LENGTH: trimmed by a loop (a /\/+$/ regex is quadratic here)
    [`https://example.com/${'/'.repeat(2_000)}a/`, `https://example.com/${'/'.repeat(2_000)}a`],
  ])('%#: %s', (raw, key) => expect(normalizeUrl(raw)).toBe(key));

  it('refuses a URL longer than MAX_URL_LENGTH instead of keying it', () => {
    expect(normalizeUrl(`https://example.com/${'/'.repeat(50_000)}a/`)).toBeNull();
  });

  it('keeps the order of a repeated query name (it can carry meaning)', () => {
    expect(normalizeUrl('https://e.com/s?tag=b&tag=a')).toBe('https://e.com/s?tag=b&tag=a');
  });

  it('resolves against a base and refuses what is not http(s)', () => {
    expect(normalizeUrl('../b/', 'https://e.com/a/c')).toBe('https://e.com/b');
    expect(normalizeUrl('mailto:x@e.com')).toBeNull();
    expect(normalizeUrl('javascript:void(0)')).toBeNull();
    expect(normalizeUrl('not a url')).toBeNull();
  });

  it('looks a page up under either scheme', () => {
    expect(lookupKeys('https://e.com/a/')).toEqual(['https://e.com/a', 'http://e.com/a']);
    expect(lookupKeys('http://e.com/')).toEqual(['http://e.com/', 'https://e.com/']);
  });
});
