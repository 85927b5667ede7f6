import { describe, expect, it } from '@jest/globals';
import { parsePageQuery, QueryError } from '../src/pages/page-query.js';
import { queryCondition } from '../src/pages/page-query.sql.js';

const ctx = { sitemapUrls: 6, deadEnds: [4, 9] };
const failure = (q: string) => {
  try {
    parsePageQuery(q);
  } catch (err) {
    if (err instanceof QueryError) return err.message;
    throw err;
  }
  throw new Error(`${q} parsed`);
};

describe('parsePageQuery', () => {
  it('reads fields, comparisons, lists, quotes, negation and bare words', () => {
    expect(parsePageQuery('status:403 depth:>2 words:<=99 verdict:OK,thin -foundVia:sitemap')).toEqual([
      { field: 'int', name: 'status', op: '=', values: [403], negate: false, raw: 'status:403' },
      { field: 'int', name: 'depth', op: '>', values: [2], negate: false, raw: 'depth:>2' },
      { field: 'int', name: 'words', op: '<=', values: [99], negate: false, raw: 'words:<=99' },
      { field: 'keyword', name: 'verdict', values: ['ok', 'thin'], negate: false, raw: 'verdict:OK,thin' },
      { field: 'keyword', name: 'foundVia', values: ['sitemap'], negate: true, raw: '-foundVia:sitemap' },
    ]);
    expect(parsePageQuery('  title:"Deep \\"two\\"" docs "a b" https://x.test/p ')).toEqual([
      { field: 'text', name: 'title', value: 'Deep "two"', negate: false, raw: 'title:"Deep \\"two\\""' },
      { field: 'text', name: 'url', value: 'docs', negate: false, raw: 'docs' },
      { field: 'text', name: 'url', value: 'a b', negate: false, raw: '"a b"' },
      { field: 'text', name: 'url', value: 'https://x.test/p', negate: false, raw: 'https://x.test/p' },
    ]);
    // Names in any case, snake_case and aliases; error codes written the canonical way.
    expect(parsePageQuery('found_via:link ERRORCODE:not_found dead_end:yes').map((t) => [t.name, t])).toEqual([
      ['foundVia', expect.objectContaining({ values: ['link'] })],
      ['errorCode', expect.objectContaining({ values: ['NOT_FOUND'] })],
      ['deadEnd', expect.objectContaining({ value: true })],
    ]);
    expect(parsePageQuery('')).toEqual([]);
  });

  it('names the term it cannot read', () => {
    expect(failure('depth:>2 colour:red')).toBe(
      'query.q: term colour:red: unknown field "colour" (fields: url, title, host, referer, status, depth, words, inLinks, outLinks, credits, verdict, errorCode, foundVia, method, tier, language, inSitemap, orphan, unlisted, deadEnd)',
    );
    expect(failure('status:4xx')).toBe('query.q: term status:4xx: status takes a whole number, e.g. status:>2');
    expect(failure('status:>400,500')).toBe('query.q: term status:>400,500: a list of numbers takes no comparison');
    expect(failure('url:>x')).toBe('query.q: term url:>x: url takes no comparison (>); only numbers do');
    expect(failure('title:"open')).toBe('query.q: term title:"open: an unclosed quote');
    expect(failure('"a"b')).toBe('query.q: term "a"b: text right after a closing quote');
    expect(failure('orphan:1 inSitemap:perhaps')).toBe('query.q: term inSitemap:perhaps: inSitemap is true or false');
    expect(failure(Array.from({ length: 31 }, (_, i) => `d${i}`).join(' '))).toBe(
      'query.q: term d30: at most 30 terms',
    );
  });
});

describe('queryCondition', () => {
  it('binds every value; the SQL text comes from constants only', () => {
    const sql = queryCondition(parsePageQuery(`url:"'; DROP TABLE page; --" -status:200,404 words:<100`), ctx);
    expect(sql.values).toEqual(["%'; DROP TABLE page; --%", [200, 404], 100]);
    expect(sql.text).not.toContain('DROP');
    expect(sql.text).toBe(
      "COALESCE((c.url ILIKE $1 ESCAPE '\\'), false) AND NOT COALESCE((c.http_status = ANY($2::int[])), false) AND COALESCE(((p.data->>'words')::int < $3::int), false)",
    );
  });

  it('treats LIKE wildcards in a value as plain characters', () => {
    expect(queryCondition(parsePageQuery('url:50%_off\\'), ctx).values).toEqual(['%50\\%\\_off\\\\%']);
  });

  it('writes the graph flags as GET /crawl computes them, and dead ends from the run’s set', () => {
    const sql = queryCondition(parsePageQuery('orphan:true unlisted:false deadEnd:true'), ctx);
    expect(sql.text).toBe(
      "COALESCE(((c.in_sitemap AND c.in_links = 0 AND c.found_via <> 'seed')), false) AND NOT COALESCE(((NOT c.in_sitemap AND c.in_links > 0 AND $1::boolean)), false) AND COALESCE((c.position = ANY($2::int[])), false)",
    );
    expect(sql.values).toEqual([true, [4, 9]]);
    expect(queryCondition([], ctx).text).toBe('TRUE');
  });
});
