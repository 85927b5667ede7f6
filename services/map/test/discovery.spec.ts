import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { ApiError } from '@tidemark/errors';
import { createLogger } from '@tidemark/telemetry';
import {
  DiscoveryService,
  sectionOf,
  type DiscoverRequest,
  type MapEntry,
} from '../src/discovery/discovery.service.js';
import { FileFetchError, type OpenedFile } from '../src/discovery/file-fetcher.js';

const O = 'https://s.example';
const UA = 'Mozilla/5.0 (compatible; TidemarkBot/0.1)';
const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

type Served = { status?: number; body: string | Buffer } | 'unreachable';

const urlset = (...paths: string[]) =>
  `<urlset ${NS}>${paths.map((p) => `<url><loc>${p.startsWith('http') ? p : O + p}</loc></url>`).join('')}</urlset>`;
const index = (...paths: string[]) =>
  `<sitemapindex ${NS}>${paths.map((p) => `<sitemap><loc>${p.startsWith('http') ? p : O + p}</loc></sitemap>`).join('')}</sitemapindex>`;
const rss = (...paths: string[]) =>
  `<rss version="2.0"><channel>${paths.map((p) => `<item><link>${O}${p}</link></item>`).join('')}</channel></rss>`;

/** A web of fixed answers by URL, recording what was asked. */
class FakeWeb {
  readonly asked: string[] = [];
  constructor(private readonly pages: Record<string, Served>) {}
  async open(url: string): Promise<OpenedFile> {
    this.asked.push(url);
    const page = this.pages[url];
    if (page === 'unreachable') throw new FileFetchError('s.example could not be resolved');
    const status = page?.status ?? (page ? 200 : 404);
    const body = page?.body ?? 'not found';
    return { status, finalUrl: url, contentType: 'application/xml', body: Readable.from([Buffer.from(body)]) };
  }
}

const limits = { maxFiles: 50, maxDepth: 6, fileTimeoutMs: 5000, maxFileBytes: 1 << 20, maxCompressedBytes: 1 << 20 };

const discover = async (
  pages: Record<string, Served>,
  over: Partial<DiscoverRequest> & { maxFiles?: number; creditsLeft?: number } = {},
) => {
  const web = new FakeWeb(pages);
  const service = new DiscoveryService(
    web,
    UA,
    { ...limits, maxFiles: over.maxFiles ?? limits.maxFiles },
    createLogger('test', 'silent'),
  );
  const entries: MapEntry[] = [];
  const charges: [number, number][] = [];
  let left = over.creditsLeft ?? Infinity;
  const result = await service.discover({
    url: `${O}/`,
    mode: 'auto',
    limit: 5000,
    search: null,
    feeds: [],
    deadline: Date.now() + 10_000,
    includeBlocked: false,
    credits: {
      authorize: async () => {
        if (left <= 0) throw new ApiError('credits_exhausted', '1 credits needed, 0 left');
      },
      charge: async (n, amount) => {
        charges.push([n, amount]);
        left -= amount;
      },
    },
    onEntries: async (batch) => void entries.push(...batch),
    ...over,
  });
  return { result, entries, urls: entries.map((e) => e.url.slice(O.length)), charges, asked: web.asked };
};

const site: Record<string, Served> = {
  [`${O}/robots.txt`]: {
    body: `Sitemap: ${O}/index.xml\nUser-agent: *\nDisallow: /private/\nSitemap: ${O}/news.rss`,
  },
  [`${O}/`]: {
    body: '<html><head><link rel="alternate" type="application/atom+xml" href="/atom.xml"></head></html>',
  },
  [`${O}/index.xml`]: { body: index('/a.xml', '/nested.xml', '/b.xml.gz') },
  [`${O}/a.xml`]: { body: urlset('/', '/one', '/private/x', '/one#frag') },
  [`${O}/nested.xml`]: { body: index('/deeper.xml') },
  [`${O}/deeper.xml`]: { body: urlset('/two', 'https://other.example/private/y') },
  [`${O}/b.xml.gz`]: { body: gzipSync(urlset('/three')) },
  [`${O}/news.rss`]: { body: rss('/news/1', '/one') },
  [`${O}/atom.xml`]: {
    body: '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="/post"/></entry></feed>',
  },
};

describe('DiscoveryService', () => {
  it('reads robots.txt, the index tree depth first, gzip by magic, and the feeds', async () => {
    const { result, entries, charges } = await discover(site);
    expect(entries.map((e) => e.url)).toEqual([
      `${O}/`,
      `${O}/one`,
      `${O}/two`,
      'https://other.example/private/y',
      `${O}/three`,
      `${O}/news/1`,
      `${O}/post`,
    ]);
    expect(result.totals).toEqual({ files: 7, urls: 7, indexes: 2, blocked: 1 });
    expect(result.method).toBe('robots');
    expect(result.stop).toBe('completed');
    expect(result.errors).toEqual([]);
    expect(result.creditsUsed).toBe(7);
    expect(charges).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [n, 1]));
    expect(result.counts).toEqual({ sitemap: 5, feed: 2 });
    expect(result.robots).toMatchObject({
      status: 200,
      found: true,
      rules: 'parsed',
      sitemaps: [`${O}/index.xml`, `${O}/news.rss`],
    });
    expect(entries.find((e) => e.url === `${O}/news/1`)).toMatchObject({ source: 'feed', file: `${O}/news.rss` });
    expect(entries.find((e) => e.url === `${O}/two`)).toMatchObject({ source: 'sitemap', file: `${O}/deeper.xml` });
    expect(result.progress).toEqual({ done: 7, total: 7, queued: 0 });
  });

  it('lists blocked URLs flagged when asked to (Discover), still counting them', async () => {
    const { result, entries } = await discover(site, { includeBlocked: true });
    expect(entries.filter((e) => e.blocked).map((e) => e.url)).toEqual([`${O}/private/x`]);
    expect(result.totals).toMatchObject({ urls: 7, blocked: 1 });
  });

  it('filters by a search substring and stops at the limit, reading no more files', async () => {
    const searched = await discover(site, { search: 'o' });
    expect(searched.entries.map((e) => e.url)).toEqual([
      `${O}/one`,
      `${O}/two`,
      'https://other.example/private/y',
      `${O}/post`,
    ]);
    const limited = await discover(site, { limit: 2 });
    expect(limited.entries.map((e) => e.url)).toEqual([`${O}/`, `${O}/one`]);
    expect(limited.result.stop).toBe('limit');
    expect(limited.result.totals.files).toBe(2); // the index and its first child
    expect(limited.asked).not.toContain(`${O}/nested.xml`);
  });

  it('reads only sitemaps in mode only, and only feeds in mode skip', async () => {
    const only = await discover(site, { mode: 'only' });
    expect(only.asked).not.toContain(`${O}/`);
    expect(only.result.totals.files).toBe(6);
    const skip = await discover(site, { mode: 'skip', feeds: [`${O}/news.rss`] });
    expect(skip.asked).not.toContain(`${O}/index.xml`);
    expect(skip.entries.map((e) => e.url)).toEqual([`${O}/news/1`, `${O}/one`, `${O}/post`]);
    expect(skip.result.method).toBe('feeds');
  });

  it('tries /sitemap.xml when robots.txt declares none, and a 404 robots.txt allows everything', async () => {
    const { result, entries } = await discover({ [`${O}/sitemap.xml`]: { body: urlset('/private/ok') } });
    expect(result.robots).toMatchObject({ status: 404, found: false, rules: 'allow_all' });
    expect(result.method).toBe('sitemap.xml');
    expect(entries.map((e) => e.url)).toEqual([`${O}/private/ok`]);
    const nothing = await discover({});
    expect(nothing.result.method).toBe('none');
    expect(nothing.result.errors).toEqual([{ file: `${O}/sitemap.xml`, reason: 'answered 404' }]);
    expect(nothing.result.creditsUsed).toBe(0);
    expect(nothing.charges).toEqual([[1, 0]]);
  });

  it('reads an unreachable or 5xx robots.txt as disallowing everything: no probe, the reason listed', async () => {
    for (const robots of ['unreachable', { status: 503, body: '' }] as Served[]) {
      const { result, asked } = await discover({
        [`${O}/robots.txt`]: robots,
        [`${O}/sitemap.xml`]: { body: urlset('/a') },
      });
      expect(result.robots.rules).toBe('disallow_all');
      expect(asked).toEqual([`${O}/robots.txt`]);
      expect(result.errors.map((e) => e.file)).toEqual([`${O}/robots.txt`, `${O}/sitemap.xml`]);
      expect(result.errors[0]!.reason).toMatch(/counts as disallowing everything/);
    }
  });

  it('reads a cycle and a self-listing index once each, saying so', async () => {
    const { result, urls } = await discover({
      [`${O}/robots.txt`]: { body: `Sitemap: ${O}/self.xml` },
      [`${O}/self.xml`]: { body: index('/self.xml', '/a.xml') },
      [`${O}/a.xml`]: { body: index('/b.xml') },
      [`${O}/b.xml`]: { body: index('/a.xml', '/end.xml') },
      [`${O}/end.xml`]: { body: urlset('/end') },
    });
    expect(urls).toEqual(['/end']);
    expect(result.totals).toMatchObject({ files: 4, indexes: 3 });
    expect(result.errors).toEqual([
      { file: `${O}/self.xml`, reason: `listed again by ${O}/self.xml (a cycle or a repeat); read once` },
      { file: `${O}/a.xml`, reason: `listed again by ${O}/b.xml (a cycle or a repeat); read once` },
    ]);
  });

  it('follows indexes six levels deep and no deeper, without charging the one not read', async () => {
    const pages: Record<string, Served> = { [`${O}/robots.txt`]: { body: `Sitemap: ${O}/d1.xml` } };
    for (let i = 1; i <= 8; i++) pages[`${O}/d${i}.xml`] = { body: index(`/d${i + 1}.xml`) };
    const { result, asked } = await discover(pages);
    expect(asked).toContain(`${O}/d6.xml`);
    expect(asked).not.toContain(`${O}/d7.xml`);
    expect(result.errors).toEqual([
      { file: `${O}/d7.xml`, reason: `not read: sitemap indexes are followed 6 levels deep (listed by ${O}/d6.xml)` },
    ]);
    expect(result.creditsUsed).toBe(6);
  });

  it('stops at the file cap with stop max_files', async () => {
    const pages: Record<string, Served> = {
      [`${O}/robots.txt`]: { body: `Sitemap: ${O}/many.xml` },
      [`${O}/many.xml`]: { body: index(...Array.from({ length: 20 }, (_, i) => `/m${i}.xml`)) },
    };
    for (let i = 0; i < 20; i++) pages[`${O}/m${i}.xml`] = { body: urlset(`/m${i}`) };
    const { result, urls } = await discover(pages, { maxFiles: 5 });
    expect(result.stop).toBe('max_files');
    expect(urls).toEqual(['/m0', '/m1', '/m2', '/m3']);
    expect(result.errors.map((e) => e.reason)).toEqual(['lists 20 files; 16 past the cap of 5 files were not read']);
  });

  it('stops when credits run out, keeping what was read', async () => {
    const { result, urls } = await discover(site, { creditsLeft: 2 });
    expect(result.stop).toBe('credits_exhausted');
    expect(urls).toEqual(['/', '/one']);
    expect(result.creditsUsed).toBe(2);
    expect(result.errors.at(-1)).toEqual({ file: `${O}/nested.xml`, reason: expect.stringMatching(/credits ran out/) });
  });

  it('lists files that failed, charges none of them, and goes on', async () => {
    const { result, urls, charges } = await discover({
      [`${O}/robots.txt`]: {
        body: ['gone', 'down', 'html', 'broken', 'ok'].map((f) => `Sitemap: ${O}/${f}.xml`).join('\n'),
      },
      [`${O}/down.xml`]: 'unreachable',
      [`${O}/html.xml`]: { body: '<!DOCTYPE html><html><body>Not here</body></html>' },
      [`${O}/broken.xml`]: { body: `<urlset ${NS}><url><loc>${O}/kept</loc></url><url><loc>x</urlset>` },
      [`${O}/ok.xml`]: { body: urlset('/ok') },
    });
    expect(urls).toEqual(['/kept', '/ok']);
    expect(result.errors).toEqual([
      { file: `${O}/gone.xml`, reason: 'answered 404' },
      { file: `${O}/down.xml`, reason: 's.example could not be resolved' },
      { file: `${O}/html.xml`, reason: 'not a sitemap or feed (an HTML page)' },
      { file: `${O}/broken.xml`, reason: expect.stringMatching(/^malformed XML: 1:\d+: /) },
    ]);
    expect(charges).toEqual([
      [1, 0],
      [2, 0],
      [3, 1],
      [4, 1],
      [5, 1],
    ]);
  });

  it('stops at the deadline with stop timeout', async () => {
    const { result } = await discover(site, { deadline: Date.now() - 1 });
    expect(result.stop).toBe('timeout');
    expect(result.totals.files).toBe(0);
  });
});

describe('sectionOf', () => {
  it('is the first path segment, "/" for the root', () => {
    expect(['https://s.example/', 'https://s.example/blog/a/b', 'https://s.example/about?x=1'].map(sectionOf)).toEqual([
      '/',
      '/blog',
      '/about',
    ]);
  });
});
