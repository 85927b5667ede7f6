import { gzipSync } from 'node:zlib';
import type { Page, Site } from './test-web.js';

/**
 * maps.test: a site that declares itself in every way a map reads. robots.txt (Sitemap lines
 * before and after its groups, /private/ disallowed but /private/press allowed, a group for
 * another bot that must not apply) → a three-level sitemap index (index → index → index →
 * urlsets), one urlset gzipped under a .gz name and one gzipped under a plain .xml name (the
 * magic bytes decide), an RSS feed declared as a sitemap and an Atom feed linked from the home
 * page. Every allowed URL is a real page, so a crawl can fetch them.
 *
 * Expected map (sitemapMode auto): 10 files (3 indexes), 18 URLs (13 from sitemaps, 5 from
 * feeds), 2 blocked (/private/a, /private/b), /about listed twice but one row.
 *
 * Hostile files live under /hostile/ (maps-hostile.test's robots.txt lists them, see
 * `mapHostileSite`), and /slow/sitemap.xml answers after 2.5 s (`mapSlowSite`).
 */
export const MAP_SITE = {
  files: 10,
  indexes: 3,
  urls: 18,
  sitemapUrls: 13,
  feedUrls: 5,
  blocked: ['/private/a', '/private/b'],
  /** The rows in the order of the tree (depth first), paths only. */
  order: [
    '/',
    '/about',
    '/contact',
    '/private/press',
    '/blog/2025/winter-tides',
    '/blog/2025/spring-tides',
    '/blog/2025/neap-tides',
    '/blog/2025/king-tides',
    '/blog/2024/harbours',
    '/blog/2024/lighthouses',
    '/products/anchor',
    '/products/rope',
    '/products/buoy',
    '/news/storm-warning',
    '/news/new-pier',
    '/news/regatta',
    '/blog/2025/tide-tables',
    '/blog/2025/moon-phases',
  ],
  /** Depth of the sitemap-index chain under /hostile/deep/ (more than a map follows). */
  deepLevels: 8,
  /** Sitemaps listed by /hostile/many-index.xml. */
  manyFiles: 60,
} as const;

const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

const xml = (body: string, type = 'application/xml'): Page => ({ type, body: XML_HEAD + body });

const urlset = (origin: string, urls: (string | { path: string; lastmod?: string; changefreq?: string })[]) =>
  xml(
    `<urlset xmlns="${SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n` +
      urls
        .map((u) => (typeof u === 'string' ? { path: u } : u))
        .map(
          (u) =>
            `  <url><loc>${origin}${u.path}</loc>` +
            (u.lastmod ? `<lastmod>${u.lastmod}</lastmod>` : '') +
            (u.changefreq ? `<changefreq>${u.changefreq}</changefreq>` : '') +
            // An image's <loc> is not a page of the site: a reader must not take it as one.
            `<image:image><image:loc>${origin}/images${u.path === '/' ? '/home' : u.path}.jpg</image:loc></image:image></url>\n`,
        )
        .join('') +
      '</urlset>\n',
  );

const sitemapIndex = (urls: string[], lastmod = '2025-03-01') =>
  xml(
    `<sitemapindex xmlns="${SITEMAP_NS}">\n` +
      urls.map((u) => `  <sitemap><loc>${u}</loc><lastmod>${lastmod}</lastmod></sitemap>\n`).join('') +
      '</sitemapindex>\n',
  );

/** A page gzipped as a file (no Content-Encoding): the body itself starts with 1f 8b. */
const gzipped = (page: Page, type: string): Page => ({ type, body: gzipSync(page.body) });

const page = (title: string, extraHead = ''): Page => ({
  type: 'text/html; charset=utf-8',
  body:
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${extraHead}</head>` +
    `<body><main><article><h1>${title}</h1><p>${`${title} on the maps test site. `.repeat(30)}</p></article></main></body></html>`,
});

const MiB = 1024 * 1024;
const bombs = new Map<string, Buffer>();

/**
 * 1 GiB of sitemap once inflated, about 3 MB as sent: gzip members of 1 MiB each (a gzip
 * stream may hold many), the same compressed member repeated, so building it never holds more
 * than 1 MiB of inflated text. Built on first request and kept.
 */
export const gzipBomb = (origin: string): Buffer => {
  const cached = bombs.get(origin);
  if (cached) return cached;
  const entry = `<url><loc>${origin}/hostile/bomb</loc></url>`;
  const chunk = Buffer.from(entry.repeat(Math.floor(MiB / entry.length)));
  const member = gzipSync(chunk, { level: 9 });
  const head = gzipSync(`${XML_HEAD}<urlset xmlns="${SITEMAP_NS}">`);
  const members = Math.ceil((1024 * MiB) / chunk.length);
  const bomb = Buffer.concat([head, ...Array.from({ length: members }, () => member)]);
  bombs.set(origin, bomb);
  return bomb;
};

export const mapSite = (origin: string): Site => {
  const o = origin;
  const pages: Site = Object.fromEntries(
    [...MAP_SITE.order.filter((p) => p !== '/'), ...MAP_SITE.blocked].map((p) => [p, page(`maps.test ${p}`)]),
  );
  const site: Site = {
    ...pages,
    '/': page(
      'maps.test',
      `<link rel="alternate" type="application/rss+xml" title="News" href="/news/feed.xml">` +
        `<link rel="alternate stylesheet" type="text/css" href="/style.css">` +
        `<link href="/blog/atom.xml" type="application/atom+xml" rel="alternate" title="Blog">`,
    ),
    '/robots.txt': {
      type: 'text/plain',
      body: [
        '# maps.test: a Sitemap line before the groups, another after them',
        `Sitemap: ${o}/sitemap_index.xml`,
        '',
        'User-agent: OtherBot',
        'Disallow: /',
        '',
        'User-agent: *',
        'Disallow: /private/',
        'Allow: /private/press',
        '',
        `Sitemap: ${o}/news/feed.xml`,
        '',
      ].join('\n'),
    },
    '/sitemap_index.xml': sitemapIndex([
      `${o}/sitemaps/pages.xml`,
      `${o}/sitemaps/blog-index.xml`,
      `${o}/sitemaps/products.xml.gz`,
    ]),
    '/sitemaps/pages.xml': urlset(o, [
      { path: '/', lastmod: '2025-03-01', changefreq: 'Daily' },
      { path: '/about', lastmod: '2024-11-02T10:00:00+00:00', changefreq: 'monthly' },
      '/contact',
      '/private/a',
      '/private/b',
      '/private/press',
    ]),
    '/sitemaps/blog-index.xml': sitemapIndex([`${o}/sitemaps/blog/2025-index.xml`, `${o}/sitemaps/blog/2024.xml`]),
    '/sitemaps/blog/2025-index.xml': sitemapIndex([
      `${o}/sitemaps/blog/2025-01.xml`,
      // Relative locs are not in the protocol, but they are in the wild: read against the file.
      '2025-02.xml',
    ]),
    '/sitemaps/blog/2025-01.xml': urlset(o, [
      { path: '/blog/2025/winter-tides', lastmod: '2025-01-10' },
      { path: '/blog/2025/spring-tides', lastmod: '2025-01-20' },
    ]),
    // Gzip under a plain .xml name and an XML type: only the magic bytes say so.
    '/sitemaps/blog/2025-02.xml': gzipped(
      urlset(o, [
        { path: '/blog/2025/neap-tides', lastmod: '2025-02-03' },
        { path: '/blog/2025/king-tides', lastmod: '2025-02-17' },
      ]),
      'application/xml',
    ),
    '/sitemaps/blog/2024.xml': urlset(o, ['/blog/2024/harbours', '/blog/2024/lighthouses', '/about']),
    '/sitemaps/products.xml.gz': gzipped(
      urlset(o, ['/products/anchor', '/products/rope', '/products/buoy']),
      'application/gzip',
    ),
    '/news/feed.xml': xml(
      '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>maps.test news</title>' +
        `<link>${o}/</link><atom:link href="${o}/news/feed.xml" rel="self" type="application/rss+xml"/>` +
        `<item><title>Storm warning</title><link>${o}/news/storm-warning</link><pubDate>Mon, 03 Mar 2025 08:00:00 GMT</pubDate>` +
        '<description>Gusts &amp; spray &nbsp; (an HTML entity a feed should not have)</description></item>' +
        `<item><title>New pier</title><link>${o}/news/new-pier</link><pubDate>Sat, 01 Mar 2025 12:30:00 GMT</pubDate></item>` +
        `<item><title>Regatta</title><guid isPermaLink="true">${o}/news/regatta</guid></item>` +
        '</channel></rss>',
      'application/rss+xml',
    ),
    '/blog/atom.xml': xml(
      '<feed xmlns="http://www.w3.org/2005/Atom"><title>maps.test blog</title>' +
        `<link rel="self" href="${o}/blog/atom.xml"/><updated>2025-03-02T00:00:00Z</updated>` +
        `<entry><title>Tide tables</title><link rel="self" href="${o}/blog/2025/tide-tables.atom"/>` +
        `<link rel="alternate" href="${o}/blog/2025/tide-tables"/><updated>2025-03-02T00:00:00Z</updated></entry>` +
        `<entry><title>Moon phases</title><link href="/blog/2025/moon-phases"/><published>2025-02-25T09:00:00Z</published></entry>` +
        '</feed>',
      'application/atom+xml',
    ),

    // Hostile files, listed by maps-hostile.test's robots.txt.
    '/hostile/malformed.xml': xml(
      `<urlset xmlns="${SITEMAP_NS}"><url><loc>${o}/hostile/before-the-error</loc></url>` +
        `<url><loc>${o}/hostile/never</url></urlset>`,
    ),
    '/hostile/laughs.xml': xml(
      '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
        Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
        `]><urlset xmlns="${SITEMAP_NS}"><url><loc>${o}/hostile/&lol9;</loc></url></urlset>`,
    ),
    '/hostile/bomb.xml': () => ({ type: 'application/xml', body: gzipBomb(o) }),
    '/hostile/self-index.xml': sitemapIndex([`${o}/hostile/self-index.xml`, `${o}/hostile/cycle-a.xml`]),
    '/hostile/cycle-a.xml': sitemapIndex([`${o}/hostile/cycle-b.xml`]),
    '/hostile/cycle-b.xml': sitemapIndex([`${o}/hostile/cycle-a.xml`, `${o}/hostile/cycle-end.xml`]),
    '/hostile/cycle-end.xml': urlset(o, ['/hostile/after-the-cycle']),
    '/hostile/not-xml.xml': page('Not a sitemap'),
    '/hostile/many-index.xml': sitemapIndex(
      Array.from({ length: MAP_SITE.manyFiles }, (_, i) => `${o}/hostile/many/${i}.xml`),
    ),
    '/slow/sitemap.xml': { ...urlset(o, ['/slow/page']), delayMs: 2500 },
  };
  for (let i = 1; i <= MAP_SITE.deepLevels; i++)
    site[`/hostile/deep/${i}.xml`] = sitemapIndex([
      i < MAP_SITE.deepLevels ? `${o}/hostile/deep/${i + 1}.xml` : `${o}/hostile/deep/end.xml`,
    ]);
  site['/hostile/deep/end.xml'] = urlset(o, ['/hostile/deep/bottom']);
  for (let i = 0; i < MAP_SITE.manyFiles; i++) site[`/hostile/many/${i}.xml`] = urlset(o, [`/hostile/many/${i}`]);
  return site;
};

/** The hostile files of `mapsOrigin` (maps.test), in this order, as robots.txt Sitemap lines. */
export const MAP_HOSTILE_FILES = [
  '/hostile/malformed.xml',
  '/hostile/laughs.xml',
  '/hostile/bomb.xml',
  '/hostile/self-index.xml',
  '/hostile/deep/1.xml',
  '/hostile/not-xml.xml',
  '/hostile/missing.xml',
  '/hostile/many-index.xml',
] as const;

/** maps-hostile.test: a robots.txt whose Sitemap lines are maps.test's hostile files. */
export const mapHostileSite = (mapsOrigin: string): Site => ({
  '/robots.txt': {
    type: 'text/plain',
    body: `User-agent: *\nAllow: /\n\n${MAP_HOSTILE_FILES.map((p) => `Sitemap: ${mapsOrigin}${p}`).join('\n')}\n`,
  },
});

/** maps-slow.test: a robots.txt naming one sitemap that answers after 2.5 s. */
export const mapSlowSite = (mapsOrigin: string): Site => ({
  '/robots.txt': { type: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: ${mapsOrigin}/slow/sitemap.xml\n` },
});
