import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The local test web: a loopback server that stands in for the internet in every test. Sites are
 * told apart by the Host header, so FETCH_HOST_MAP (`*.test=127.0.0.1:<port>`) can send any
 * number of named hosts to it. This first version serves one small site; later issues add the
 * pages each verdict needs.
 */
export type Page = { status?: number; type?: string; headers?: Record<string, string>; body: string };
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
  close(): Promise<void>;
}

export const startTestWeb = async (): Promise<TestWeb> => {
  const sites = new Map<string, Site>();
  const hits: TestWeb['hits'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push({ host, path });
    const entry = sites.get(host)?.[path];
    const page: Page = entry
      ? typeof entry === 'function'
        ? entry(req)
        : entry
      : { status: 404, ...html('Not found', '<h1>Not found</h1>') };
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...page.headers });
    res.end(req.method === 'HEAD' ? undefined : page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = (host: string, path = '/') => `http://${host}:${port}${path}`;
  const web: TestWeb = {
    port,
    url,
    hostMap: `*.test=127.0.0.1:${port}`,
    hits,
    addSite: (host, site) => sites.set(host.toLowerCase(), site),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  web.addSite('news.test', exampleSite(`http://news.test:${port}`));
  return web;
};
