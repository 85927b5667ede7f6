import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { mapSite } from './map-site.js';
import { crawlBlogSite, crawlSite, treeSite } from './crawl-site.js';
import { harbourSite, harbourState, type HarbourState } from './harbour-site.js';
import { handbookSite } from './handbook-site.js';
import { chandlerySite } from './chandlery-site.js';
import { hostileSite } from './hostile-site.js';

/**
 * The local test web: a loopback server that stands in for the internet in every test. Sites are
 * told apart by the Host header, so FETCH_HOST_MAP (`*.test=127.0.0.1:<port>`) can send any
 * number of named hosts to it. This first version serves one small site; later issues add the
 * pages each verdict needs.
 */
export type Page = {
  status?: number;
  type?: string;
  headers?: Record<string, string>;
  body: string | Buffer;
  /** Milliseconds to wait before answering (slow pages). */
  delayMs?: number;
};
/** Pages by path; a `*` entry answers every path the others do not (generated sites). */
export type Site = Record<string, Page | ((req: IncomingMessage) => Page)>;

const html = (title: string, body: string, lang = 'en'): Page => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title>
<meta name="description" content="${title} on the Tidemark test web"></head>
<body><header><nav><a href="/">Home</a> <a href="/articles/">Articles</a></nav></header>
<main>${body}</main><footer>© Test Web</footer></body></html>`,
});

/** A small news-like site: a home page, a listing, two articles, robots.txt and a sitemap. */
export const exampleSite = (origin: string): Site => ({
  '/': html(
    'Example News',
    '<h1>Example News</h1><p>Latest: <a href="/articles/tides">Tides</a>, <a href="/articles/harbours">Harbours</a>.</p>',
  ),
  '/articles/': html(
    'Articles',
    '<h1>Articles</h1><ul><li><a href="/articles/tides">How tides work</a></li><li><a href="/articles/harbours">Old harbours</a></li></ul>',
  ),
  '/articles/tides': html(
    'How tides work',
    '<article><h1>How tides work</h1><p>The moon pulls the oceans towards it, and the earth turns beneath that bulge twice a day. ' +
      'Spring tides come when sun and moon line up; neap tides when they stand at right angles.</p></article>',
  ),
  '/articles/harbours': html(
    'Old harbours',
    '<article><h1>Old harbours</h1><p>Harbours were built where the tidal range let ships in on the flood and out on the ebb.</p></article>',
  ),
  '/robots.txt': {
    type: 'text/plain',
    body: `User-agent: *\nDisallow: /private/\nSitemap: ${origin}/sitemap.xml\n`,
  },
  '/sitemap.xml': {
    type: 'application/xml',
    body:
      '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
      ['/', '/articles/', '/articles/tides', '/articles/harbours']
        .map((p) => `<url><loc>${origin}${p}</loc></url>`)
        .join('') +
      '</urlset>',
  },
});

export interface TestWeb {
  port: number;
  /** `http://<host>:<port><path>`, for hosts routed here. */
  url(host: string, path?: string): string;
  /** A FETCH_HOST_MAP value sending `*.test` and `test` hosts here. */
  hostMap: string;
  /** Requests served, for tests that count fetches. */
  hits: { host: string; path: string }[];
  addSite(host: string, site: Site): void;
  /** harbour.test's edition (it advances by itself at each run; set `auto: false` to pin it). */
  harbour: HarbourState;
  close(): Promise<void>;
}

/**
 * One page for every verdict and errorCode the http rung can meet (pages.test). The browser
 * rung's pages (rendered apps, captcha widgets) are served here too; what they read as depends
 * on the rung.
 */
export const verdictSite = (origin: string): Site => {
  const words = (n: number, seed = 'tide') => Array.from({ length: n }, (_, i) => `${seed}${i % 37}`).join(' ');
  return {
    '/article': html(
      'How tides work',
      `<article><h1>How tides work</h1><h2>The moon</h2><p>${words(160)}</p><h2>The sun</h2><p>${words(140, 'sun')}</p>` +
        '<ul><li>Spring tides</li><li>Neap tides</li></ul><pre><code class="language-js">const tide = moon + sun;</code></pre></article>',
    ),
    '/short': html(
      'Contact',
      '<h1>Contact</h1><form><input name="name"><input name="email"><textarea name="msg"></textarea></form>',
    ),
    '/app': html(
      'App',
      '<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>' +
        `<script>document.getElementById('root').innerHTML = '<article><h1>Rendered</h1><p>${words(120, 'rendered')}</p></article>';</script>` +
        '<script src="/static/vendor.js"></script><script src="/static/main.js"></script>',
    ),
    // A shop's page rendered by a script whose served HTML holds its navigation and a footer of
    // ninety-odd words: the footer is not the page, and the shell still climbs to the browser.
    '/app-with-footer': html(
      'Harbour Lamp',
      '<header><nav><a href="/">Home</a> <a href="/lamps">Lamps</a> <a href="/rugs">Rugs</a> <a href="/sale">Sale</a></nav></header>' +
        '<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>' +
        `<footer><ul>${['Help centre', 'Disputes and reports', 'Returns and refunds', 'Shipping', 'Track an order', 'Gift cards', 'Careers', 'Press', 'Privacy', 'Terms of use', 'Accessibility'].map((l) => `<li><a href="/help/${l.length}">${l}</a></li>`).join('')}</ul>` +
        `<p>${words(70, 'footer')}</p><p>Northwind Home Ltd, 12 Harbour Road, Bristol. Registered in England and Wales.</p></footer>` +
        `<script>document.getElementById('root').innerHTML = '<article><h1>Rendered lamp</h1><p>${words(120, 'lamp')}</p></article>';</script>` +
        '<script src="/static/vendor.js"></script><script src="/static/main.js"></script>',
    ),
    // A forum thread rendered by a script (as Discourse serves it to a browser): the served body
    // is a loading splash, and the meta description carries the first post's opening.
    '/thread-shell': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Best first telescope? - Stargazers forum</title>
<meta name="description" content="Howdy everyone… I&#39;m new to astronomy and would love advice on choosing a first telescope for planets and deep-sky objects, somewhere around $300 to $500. Refractor or reflector?">
</head><body><section id="d-splash"><div class="preloader-image"><div class="dots"></div></div></section>
<section id="main"></section><noscript><p>Please enable JavaScript in your browser to use this forum.</p></noscript>
<script>document.getElementById('main').innerHTML = '<article><h1>Best first telescope?</h1><p>${words(80, 'thread')}</p><p>${words(60, 'reply')}</p></article>'; document.getElementById('d-splash').remove();</script>
<script src="/static/vendor.js"></script><script src="/static/main.js"></script></body></html>`,
    },
    '/missing': { status: 404, ...html('Not found', '<h1>Not found</h1>') },
    '/gone': { status: 410, ...html('Gone', '<h1>Gone</h1>') },
    '/soft-404': html('Page not found', '<h1>Page not found</h1><p>Sorry, we could not find that page.</p>'),
    '/challenge': {
      status: 403,
      ...html(
        'Just a moment...',
        '<h1>Checking your browser before accessing the site.</h1><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>',
      ),
    },
    '/forbidden': { status: 403, ...html('Forbidden', '<h1>Access denied</h1>') },
    // A bot check without a captcha widget (an Imperva-style interstitial): BLOCKED at every rung.
    '/bot-check': {
      status: 403,
      ...html(
        'Pardon Our Interruption',
        '<h1>Pardon our interruption</h1><p>Checking your browser before you reach the site.</p>' +
          '<script src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e"></script>',
      ),
    },
    '/captcha': html(
      'Verify',
      '<h1>One more step</h1><div class="g-recaptcha" data-sitekey="6Lc"></div><script src="https://www.google.com/recaptcha/api.js"></script>',
    ),
    '/login': html(
      'Sign in',
      '<h1>Sign in to continue</h1><form><input name="user"><input type="password" name="pass"></form>',
    ),
    '/geo': html('Unavailable', '<h1>Sorry</h1><p>This content is not available in your country.</p>'),
    '/unavailable-for-legal-reasons': {
      status: 451,
      ...html(
        'Unavailable For Legal Reasons',
        '<h1>Unavailable for legal reasons</h1><p>Not shown in your region.</p>',
      ),
    },
    '/rate-limited': {
      status: 429,
      headers: { 'retry-after': '30' },
      ...html('Too many requests', '<h1>Slow down</h1>'),
    },
    '/server-error': { status: 503, ...html('Unavailable', '<h1>Service unavailable</h1>') },
    '/slow': { delayMs: 3000, ...html('Slow', `<article><h1>Slow page</h1><p>${words(120, 'slow')}</p></article>`) },
    '/redirect': { status: 301, headers: { location: '/article' }, body: '' },
    '/latin1': {
      type: 'text/html; charset=iso-8859-1',
      body: Buffer.from(
        `<html><head><title>Caf\u00e9</title></head><body><article><h1>Caf\u00e9 cr\u00e8me</h1><p>${words(80, 'd\u00e9j\u00e0')}</p></article></body></html>`,
        'latin1',
      ),
    },
    '/gzip': compressed('gzip', html('Gzipped', `<article><h1>Gzipped page</h1><p>${words(90, 'gz')}</p></article>`)),
    '/brotli': compressed('br', html('Brotli', `<article><h1>Brotli page</h1><p>${words(90, 'br')}</p></article>`)),
    '/table': html(
      'Prices',
      '<h1>Prices</h1><table><tr><th>Item</th><th>Price</th></tr><tr><td>Rope</td><td>3</td></tr><tr><td>Anchor</td><td>40</td></tr></table>',
    ),
    '/robots.txt': { type: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n` },
  };
};

/** A page sent with Content-Encoding, as most sites answer. */
const compressed = (encoding: 'gzip' | 'br', page: Page): Page => ({
  ...page,
  headers: { ...page.headers, 'content-encoding': encoding, vary: 'accept-encoding' },
  body: encoding === 'gzip' ? gzipSync(page.body) : brotliCompressSync(page.body),
});

/** A site of `n` small article pages (/p/0 … /p/n-1) for batches and crawls. */
export const bulkSite = (host: string, n: number): Site =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `/p/${i}`,
      html(
        `${host} page ${i}`,
        `<article><h1>Page ${i} of ${host}</h1><p>${Array.from({ length: 80 }, (_, w) => `word${(w * 7 + i) % 53}`).join(' ')}</p></article>`,
      ),
    ]),
  );

export const startTestWeb = async (opts: { address?: string } = {}): Promise<TestWeb> => {
  const sites = new Map<string, Site>();
  const hits: TestWeb['hits'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push({ host, path });
    const site = sites.get(host);
    const entry = site?.[path] ?? site?.['*'];
    const page: Page = entry
      ? typeof entry === 'function'
        ? entry(req)
        : entry
      : { status: 404, ...html('Not found', '<h1>Not found</h1>') };
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...page.headers });
      res.end(req.method === 'HEAD' ? undefined : page.body);
    };
    if (page.delayMs) setTimeout(send, page.delayMs).unref();
    else send();
  });
  const address = opts.address ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const port = (server.address() as AddressInfo).port;
  const url = (host: string, path = '/') => `http://${host}:${port}${path}`;
  const web: TestWeb = {
    port,
    url,
    hostMap: `*.test=${address}:${port}`,
    hits,
    addSite: (host, site) => sites.set(host.toLowerCase(), site),
    harbour: harbourState(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  web.addSite('news.test', exampleSite(`http://news.test:${port}`));
  web.addSite('pages.test', verdictSite(`http://pages.test:${port}`));
  for (const host of ['a.test', 'b.test', 'c.test', 'd.test']) web.addSite(host, bulkSite(host, 100));
  web.addSite('maps.test', mapSite(`http://maps.test:${port}`));
  web.addSite('crawl.test', crawlSite(`http://crawl.test:${port}`, `http://blog.crawl.test:${port}`));
  web.addSite('blog.crawl.test', crawlBlogSite());
  web.addSite('tree.test', treeSite(2000));
  web.addSite('big.test', treeSite(10_000));
  web.addSite('harbour.test', harbourSite(`http://harbour.test:${port}`, web.harbour));
  web.addSite('handbook.test', handbookSite(`http://handbook.test:${port}`));
  web.addSite('chandlery.test', chandlerySite());
  web.addSite('hostile.test', hostileSite(`http://hostile.test:${port}`));
  return web;
};
