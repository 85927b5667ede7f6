import { describe, expect, it } from '@jest/globals';
import { resolveFormat } from '../src/exports/catalog.js';
import { declaredLastmod, flatFieldsRow, pageRow } from '../src/exports/rows.js';
import { matchKey, UrlFilter } from '../src/exports/url-match.js';
import type { StoredPage } from '../src/repositories/run-export.repository.js';

const stored = (over: Partial<StoredPage> = {}): StoredPage => ({
  id: 'pg_1',
  url: 'https://h.test/a',
  status: 'done',
  httpStatus: 200,
  verdict: 'ok',
  errorCode: 'OK',
  tier: 'http',
  credits: 1,
  crawledAt: new Date('2026-03-01T10:00:00.000Z'),
  data: { words: 120, signals: ['main'], head: { title: 'A', description: 'About A', canonical: null } },
  depth: 1,
  foundVia: 'link',
  firstReferer: 'https://h.test/',
  inSitemap: false,
  inLinks: 2,
  ...over,
});

describe('URL matching for POST exports', () => {
  it('matches under either scheme, with or without the trailing slash, as the crawl does', () => {
    const f = new UrlFilter(['https://H.test/guides/', 'http://h.test/b?z=1&a=2', 'not a url', 'ftp://h.test/x']);
    expect(f.has('http://h.test/guides')).toBe(true);
    expect(f.has('https://h.test:443/guides/')).toBe(true);
    expect(f.has('https://h.test/b?a=2&z=1#frag')).toBe(true);
    expect(f.has('https://h.test/guides/x')).toBe(false);
    expect(f.has('https://h.test/b')).toBe(false);
    expect(f.has('ftp://h.test/x')).toBe(false);
  });

  it('keeps the root slash, decodes unreserved escapes and keeps the order of repeated names', () => {
    expect(matchKey('https://h.test')).toBe('//h.test/');
    expect(matchKey('http://h.test/%7Euser/%2f')).toBe('//h.test/~user/%2F');
    expect(matchKey('https://h.test/s?b=1&a=2&b=3')).toBe('//h.test/s?b=1&a=2&b=3');
    expect(matchKey('https://h.test///')).toBe('//h.test/');
    expect(matchKey(`https://h.test/${'/'.repeat(50_000)}a//`)).toBe(`//h.test/${'/'.repeat(50_000)}a`);
  });
});

describe('dataset and format', () => {
  it('defaults jsonl for tables and txt for llms, and refuses a format a dataset does not come in', () => {
    expect(resolveFormat('pages', '')).toEqual({ dataset: 'pages', format: 'jsonl' });
    expect(resolveFormat('llms-full', '')).toEqual({ dataset: 'llms-full', format: 'txt' });
    expect(resolveFormat('sitemap', 'csv')).toEqual({ dataset: 'sitemap', format: 'csv' });
    expect(() => resolveFormat('llms', 'csv')).toThrow('format: dataset llms comes as txt, not "csv"');
    expect(() => resolveFormat('pages', 'txt')).toThrow('format: dataset pages comes as jsonl or csv, not "txt"');
    expect(() => resolveFormat('everything', '')).toThrow(/unknown dataset "everything"/);
  });
});

describe('rows', () => {
  it('flags orphan and unlisted by the crawl’s rules, null for a page the crawl did not find', () => {
    expect(pageRow(stored(), true)).toMatchObject({ orphan: false, unlisted: true, origin: 'https://h.test' });
    expect(pageRow(stored(), false)).toMatchObject({ unlisted: false });
    expect(pageRow(stored({ inSitemap: true, inLinks: 0, foundVia: 'sitemap' }), true)).toMatchObject({
      orphan: true,
      unlisted: false,
    });
    expect(pageRow(stored({ inSitemap: true, inLinks: 0, foundVia: 'seed' }), true)).toMatchObject({ orphan: false });
    const none = pageRow(
      stored({ depth: null, foundVia: null, firstReferer: null, inSitemap: null, inLinks: null }),
      true,
    );
    expect(none).toMatchObject({ depth: null, foundVia: null, orphan: null, unlisted: null });
    expect(pageRow(stored(), true)).toMatchObject({
      title: 'A',
      description: 'About A',
      crawledAt: '2026-03-01T10:00:00.000Z',
      warnings: [],
      fields: null,
    });
  });

  it('puts a field named url in the column fields.url', () => {
    const p = stored({ data: { fields: { url: '/book', price: '$24', tags: ['a', 'b'] } } });
    expect(flatFieldsRow(p, ['price', 'tags', 'url', 'missing'])).toEqual({
      url: 'https://h.test/a',
      price: '$24',
      tags: ['a', 'b'],
      'fields.url': '/book',
      missing: null,
    });
  });

  it('reads lastmod from JSON-LD dateModified, then og:updated_time, then datePublished', () => {
    expect(
      declaredLastmod({
        jsonLd: [{ '@graph': [{ '@type': 'WebSite' }, { dateModified: '2026-02-03T04:05:06+02:00' }] }],
        openGraph: { 'og:updated_time': '2020-01-01' },
      }),
    ).toBe('2026-02-03T02:05:06.000Z');
    expect(
      declaredLastmod({ jsonLd: [{ datePublished: '2024-05-01' }], openGraph: { 'og:updated_time': 'soon' } }),
    ).toBe('2024-05-01');
    expect(declaredLastmod({ jsonLd: [], openGraph: { 'og:updated_time': '2025-12-24T18:00:00Z' } })).toBe(
      '2025-12-24T18:00:00.000Z',
    );
    expect(declaredLastmod({ jsonLd: [[{ dateModified: 'yesterday' }]] })).toBeNull();
    expect(declaredLastmod(null)).toBeNull();
  });
});
