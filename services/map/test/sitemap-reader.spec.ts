import { describe, expect, it } from '@jest/globals';
import { MAX_RUN_CHARS, SitemapReader } from '../src/discovery/sitemap-reader.js';

/** Feeds `text` in chunks of `size` characters, as a stream would. */
const read = (text: string, size = 7) => {
  const reader = new SitemapReader();
  const entries = [];
  for (let i = 0; i < text.length && !reader.stopped; i += size) {
    reader.write(text.slice(i, i + size));
    entries.push(...reader.drain());
  }
  reader.end();
  entries.push(...reader.drain());
  return { kind: reader.kind, error: reader.error, entries };
};

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

describe('SitemapReader', () => {
  it('reads a urlset in small chunks: loc, lastmod, changefreq, never an image loc', () => {
    const { kind, error, entries } = read(
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS} xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` +
        '<url><loc> https://s.example/a?x=1&amp;y=2 </loc><lastmod>2025-01-02</lastmod><changefreq>Weekly</changefreq>' +
        '<image:image><image:loc>https://s.example/a.jpg</image:loc></image:image></url>' +
        '<url><loc><![CDATA[https://s.example/b]]></loc></url><url><lastmod>2025-01-01</lastmod></url></urlset>',
    );
    expect([kind, error]).toEqual(['urlset', null]);
    expect(entries).toEqual([
      { kind: 'url', loc: 'https://s.example/a?x=1&y=2', lastmod: '2025-01-02', changefreq: 'weekly' },
      { kind: 'url', loc: 'https://s.example/b', lastmod: null, changefreq: null },
    ]);
  });

  it('reads a sitemap index as sitemap entries', () => {
    const { kind, entries } = read(
      `<sitemapindex ${NS}><sitemap><loc>https://s.example/s1.xml</loc><lastmod>2025-03-01</lastmod></sitemap>` +
        '<sitemap><loc>/s2.xml.gz</loc></sitemap></sitemapindex>',
    );
    expect(kind).toBe('sitemapindex');
    expect(entries.map((e) => [e.kind, e.loc, e.lastmod])).toEqual([
      ['sitemap', 'https://s.example/s1.xml', '2025-03-01'],
      ['sitemap', '/s2.xml.gz', null],
    ]);
  });

  it('reads RSS 2.0 items (link, else a permalink guid; pubDate as ISO) and tolerates HTML entities', () => {
    const { kind, error, entries } = read(
      '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><link>https://s.example/</link>' +
        '<atom:link href="https://s.example/feed" rel="self"/>' +
        '<item><title>A &nbsp; b</title><link>https://s.example/one</link><pubDate>Mon, 03 Mar 2025 08:00:00 GMT</pubDate></item>' +
        '<item><guid isPermaLink="false">tag:1</guid></item>' +
        '<item><guid>https://s.example/two</guid><pubDate>not a date</pubDate></item></channel></rss>',
    );
    expect([kind, error]).toEqual(['rss', null]);
    expect(entries.map((e) => [e.loc, e.lastmod])).toEqual([
      ['https://s.example/one', '2025-03-03T08:00:00.000Z'],
      ['https://s.example/two', 'not a date'],
    ]);
  });

  it('reads RSS 1.0 (RDF) items', () => {
    const { kind, entries } = read(
      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
        '<channel rdf:about="https://s.example/"><link>https://s.example/</link></channel>' +
        '<item rdf:about="https://s.example/r1"><link>https://s.example/r1</link><dc:date>2025-01-05T00:00:00Z</dc:date></item>' +
        '</rdf:RDF>',
    );
    expect(kind).toBe('rss');
    expect(entries.map((e) => [e.loc, e.lastmod])).toEqual([['https://s.example/r1', '2025-01-05T00:00:00.000Z']]);
  });

  it('reads Atom entries: the alternate link, updated before published', () => {
    const { kind, entries } = read(
      '<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="https://s.example/atom"/>' +
        '<entry><link rel="self" href="https://s.example/x.atom"/><link rel="alternate" href="https://s.example/x"/>' +
        '<published>2025-01-01T00:00:00Z</published><updated>2025-02-01T00:00:00Z</updated></entry>' +
        '<entry><link href="/y"/><published>2025-01-03T00:00:00Z</published></entry></feed>',
    );
    expect(kind).toBe('atom');
    expect(entries.map((e) => [e.loc, e.lastmod])).toEqual([
      ['https://s.example/x', '2025-02-01T00:00:00.000Z'],
      ['/y', '2025-01-03T00:00:00.000Z'],
    ]);
  });

  it('reads a text sitemap, one URL per line', () => {
    const { kind, error, entries } = read(
      '\uFEFFhttps://s.example/a\r\nhttps://s.example/b\n\n# not a url\nhttps://s.example/c',
    );
    expect([kind, error]).toEqual(['text', null]);
    expect(entries.map((e) => e.loc)).toEqual(['https://s.example/a', 'https://s.example/b', 'https://s.example/c']);
  });

  it('keeps what came before malformed XML and names the error with its position', () => {
    const { error, entries } = read(
      `<urlset ${NS}><url><loc>https://s.example/ok</loc></url><url><loc>https://s.example/never</url></urlset>`,
    );
    expect(entries.map((e) => e.loc)).toEqual(['https://s.example/ok']);
    expect(error).toMatch(/^malformed XML: 1:\d+: unexpected close tag/);
  });

  it('refuses a DTD that declares entities (billion laughs) without expanding anything', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      `]><urlset ${NS}><url><loc>https://s.example/&lol9;</loc></url></urlset>`;
    const { error, entries } = read(laughs, 64);
    expect(error).toBe('declares entities in a DTD (<!ENTITY>); entities are never expanded');
    expect(entries).toEqual([]);
  });

  it.each([
    ['<!doctype html><html><head><title>x</title></head><body></body></html>', /an HTML page/],
    ['<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>', /root element <html>/],
    ['{"urls": []}', /neither XML nor a list of URLs/],
    ['   ', /empty file/],
    [`<urlset ${NS}><url><loc>https://s.example/a</loc>`, /malformed XML/],
  ])('ends %j with a reason', (text, reason) => {
    expect(read(text).error).toMatch(reason);
  });

  it('stops a single text run longer than the cap instead of holding it', () => {
    const reader = new SitemapReader();
    reader.write(`<urlset ${NS}><url><loc>`);
    const chunk = 'x'.repeat(64 * 1024);
    let written = 0;
    while (!reader.stopped && written < MAX_RUN_CHARS * 3) {
      reader.write(chunk);
      written += chunk.length;
    }
    expect(reader.error).toMatch(/runs longer than/);
    expect(written).toBeLessThanOrEqual(MAX_RUN_CHARS + chunk.length);
  });
});
