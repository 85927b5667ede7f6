import { describe, expect, it } from '@jest/globals';
import { LIMITS, excerpt, shapeMultiPage, shapeSinglePage, type RowLike } from '../src/shaping/shape.js';

const row = (i: number, chars: number, extra: Partial<RowLike> = {}): RowLike => ({
  url: `https://site.example/p/${i}`,
  httpStatus: 200,
  verdict: 'ok',
  errorCode: 'OK',
  words: chars / 6,
  head: { title: `Page ${i}` },
  markdown: `${i}:`.padEnd(chars, 'x'),
  links: Array.from({ length: i % 7 }, (_, k) => `https://site.example/l/${k}`),
  ...extra,
});

describe('result shaping for agents', () => {
  it('indexes at most 500 pages, each with a link count instead of links, and says how many were left out', () => {
    const rows = Array.from({ length: 620 }, (_, i) => row(i, 10));
    const shaped = shapeMultiPage(rows);
    expect(shaped.pages).toHaveLength(LIMITS.indexPages);
    expect(shaped.notIndexed).toBe(120);
    expect(shaped.pages[3]).toEqual({
      url: 'https://site.example/p/3',
      title: 'Page 3',
      verdict: 'ok',
      httpStatus: 200,
      errorCode: null,
      words: 10 / 6,
      links: 3,
    });
    expect(JSON.stringify(shaped)).not.toContain('/l/0');
  });

  it('quotes at most fifty pages even when they are short', () => {
    const shaped = shapeMultiPage(Array.from({ length: 80 }, (_, i) => row(i, 100)));
    expect(shaped.excerpt).toHaveLength(LIMITS.excerptPages);
    expect(shaped.excerptChars).toBe(50 * 100);
  });

  it('quotes whole pages while the 60,000-character budget lasts and cuts the one that does not fit', () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i, 14_000));
    const { excerpt: quoted, excerptChars } = excerpt(rows);
    expect(quoted.map((e) => e.markdown.length)).toEqual([14_000, 14_000, 14_000, 14_000, 4_000]);
    expect(quoted.map((e) => e.truncated)).toEqual([false, false, false, false, true]);
    expect(excerptChars).toBe(LIMITS.excerptBudget);
  });

  it('skips pages with no body in the excerpt (the index still lists them)', () => {
    const rows = [row(0, 50, { markdown: undefined, verdict: 'blocked', errorCode: 'BLOCKED' }), row(1, 50)];
    const shaped = shapeMultiPage(rows);
    expect(shaped.excerpt.map((e) => e.url)).toEqual(['https://site.example/p/1']);
    expect(shaped.pages[0]).toMatchObject({ verdict: 'blocked', errorCode: 'BLOCKED' });
  });

  it('cuts each body of a single page to 12,000 characters and says how long it was', () => {
    const page = shapeSinglePage({
      ...row(1, 30_000),
      text: 'short',
      html: '<p>'.padEnd(20_000, 'y'),
      screenshot: 'data:image/jpeg;base64,AAAA',
      links: Array.from({ length: 250 }, (_, k) => `https://site.example/${k}`),
    });
    expect((page.markdown as string).length).toBe(LIMITS.bodyChars);
    expect((page.html as string).length).toBe(LIMITS.bodyChars);
    expect(page.text).toBe('short');
    expect(page.truncated).toEqual({ limit: LIMITS.bodyChars, fullLength: { markdown: 30_000, html: 20_000 } });
    expect(page.linkCount).toBe(250);
    expect(page.links).toHaveLength(100);
    expect(page.screenshot).not.toContain('base64');
  });
});
