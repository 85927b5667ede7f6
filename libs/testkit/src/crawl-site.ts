import type { IncomingMessage } from 'node:http';
import type { Page, Site } from './test-web.js';

const para = (seed: string, n = 60) =>
  `<p>${Array.from({ length: n }, (_, i) => `${seed}${(i * 7) % 31} tide harbour`).join(' ')}.</p>`;
/** A page whose only links are the ones given (no shared menu: the link graph is exact). */
const html = (title: string, body: string): Page => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`,
});
const article = (title: string, links: string[]) =>
  html(
    title,
    `<article><h1>${title}</h1>${para(title.toLowerCase().replace(/\W+/g, ''))}<ul>${links
      .map((l) => `<li><a href="${l}">${l}</a></li>`)
      .join('')}</ul></article>`,
  );

/**
 * crawl.test: a small site whose link graph exercises every rule of a crawl. Its sitemap lists
 * /, /about, /docs/a, /docs/b, /orphan (linked from nowhere) and /private/secret (robots.txt
 * forbids /private/). Links add /docs/ (listed without its slash: the same URL), /unlisted (in
 * no sitemap), a depth chain /docs/deep/1 → 2 → 3, a query spelled two ways, a subdomain
 * (blog.crawl.test) and another host (elsewhere.test).
 */
export const crawlSite = (origin: string, blogOrigin: string): Site => ({
  '/': article('Crawl home', [
    '/about',
    '/docs/',
    '/unlisted',
    '/docs/a#intro',
    '/about/',
    '/search?b=2&a=1',
    '/search?a=1&b=2',
    `${blogOrigin}/`,
    'http://elsewhere.test/',
    'mailto:crew@crawl.test',
  ]),
  '/about': article('About', ['/']),
  '/docs/': article('Docs', ['/docs/a', '/docs/b', '/docs/deep/1']),
  '/docs/a': article('Doc A', ['/docs/b']),
  '/docs/b': article('Doc B', ['/docs/a']),
  '/docs/deep/1': article('Deep one', ['/docs/deep/2']),
  '/docs/deep/2': article('Deep two', ['/docs/deep/3']),
  '/docs/deep/3': article('Deep three', []),
  '/unlisted': article('Unlisted', ['/']),
  '/orphan': article('Orphan', ['/']),
  '/search': article('Search', []),
  '/private/secret': article('Secret', []),
  '/robots.txt': { type: 'text/plain', body: `User-agent: *\nDisallow: /private/\nSitemap: ${origin}/sitemap.xml\n` },
  '/sitemap.xml': {
    type: 'application/xml',
    body:
      '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
      ['/', '/about', '/docs/a', '/docs/b', '/orphan', '/private/secret']
        .map((p) => `<url><loc>${origin}${p}</loc></url>`)
        .join('') +
      '</urlset>',
  },
});

/** blog.crawl.test: the subdomain, reached only with allowSubdomains. */
export const crawlBlogSite = (): Site => ({
  '/': article('Blog', ['/post']),
  '/post': article('Blog post', ['/']),
});

/**
 * A generated site of `n` pages for scale tests and the crawl bench: / links /p/0, and /p/i links
 * /p/(2i+1) and /p/(2i+2) (a binary tree, depth log2 n) plus the home page and a few navigation
 * links every page repeats, like a real site's menu. No sitemap; robots.txt allows all.
 */
export const treeSite = (n: number): Site => {
  const nav = ['/', '/p/0', '/p/1', '/p/2'].map((l) => `<a href="${l}">${l}</a>`).join(' ');
  const page = (i: number): Page => {
    const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < n).map((k) => `/p/${k}`);
    return html(
      `Page ${i}`,
      `<nav>${nav}</nav><article><h1>Page ${i}</h1>${para(`w${i % 97}x`, 40)}<ul>${kids
        .map((k) => `<li><a href="${k}">${k}</a></li>`)
        .join('')}</ul></article>`,
    );
  };
  const notFound: Page = { status: 404, ...html('Not found', '<h1>Not found</h1>') };
  return {
    '/': html('Tree', `<h1>Tree of ${n} pages</h1><a href="/p/0">start</a>`),
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '*': (req: IncomingMessage) => {
      const m = /^\/p\/(\d+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      const i = m ? Number(m[1]) : -1;
      return i >= 0 && i < n ? page(i) : notFound;
    },
  };
};
