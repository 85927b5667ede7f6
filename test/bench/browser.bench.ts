// The browser tier's pages/s beside a baseline measured in the same process and run: one
// Chromium (puppeteer-core, no pool) with 4 reused tabs doing plain goto('load') + content(),
// against the browser pool (incognito-context lanes wiped between renders and rendered hidden, fetch-guard proxy,
// stealth, block_media) — the same 40 local pages, the same Chromium, 4 pages in flight in both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, launchChromium, loadConfig } from '@tidemark/browser-pool';

const PAGES = Number(process.env.BENCH_BROWSER_PAGES ?? 40);
const IN_FLIGHT = 4;
/** What an image or font costs on a real network: its own round trip from a CDN. */
const ASSET_DELAY_MS = Number(process.env.BENCH_ASSET_DELAY_MS ?? 120);

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A moderately heavy article: ~60 KB of markup, a stylesheet, a script that builds a table, 8 images. */
const articleHtml = (n: number) => {
  const paragraphs = Array.from(
    { length: 120 },
    (_, i) => `<p>Paragraph ${i} of page ${n}: ${'lorem ipsum dolor sit amet '.repeat(15)}</p>`,
  ).join('\n');
  const images = Array.from({ length: 8 }, (_, i) => `<img src="/img/${n}-${i}.png" width="200" height="120">`).join(
    '',
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>Article ${n}</title>
<link rel="stylesheet" href="/site.css"></head><body>
<header><nav>${Array.from({ length: 30 }, (_, i) => `<a href="/p/${i}">link ${i}</a>`).join(' ')}</nav></header>
<main><h1>Article ${n}</h1>${images}${paragraphs}<div id="app"></div></main>
<script>
  const rows = [];
  for (let i = 0; i < 400; i++) rows.push('<tr><td>' + i + '</td><td>' + (i * i) + '</td><td>' + Math.sqrt(i).toFixed(3) + '</td></tr>');
  document.getElementById('app').innerHTML = '<table id="built">' + rows.join('') + '</table>';
</script></body></html>`;
};

const startSite = async () => {
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/p/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(articleHtml(Number(path.slice(3))));
    } else if (path === '/site.css') {
      res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:serif;max-width:60em} td{padding:2px}');
    } else if (path.startsWith('/img/')) {
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL), ASSET_DELAY_MS);
    } else res.writeHead(404).end();
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
};

/** Runs `work(i)` for i < count with `inFlight` at a time; answers pages/s. */
const measure = async (count: number, inFlight: number, work: (i: number, lane: number) => Promise<string>) => {
  let next = 0;
  let bad = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      while (next < count) {
        const i = next++;
        const html = await work(i, lane);
        if (!html.includes('id="built"')) bad++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (bad) throw new Error(`${bad} pages came back without their script-built table; the figure would lie`);
  return count / seconds;
};

export async function benchBrowser(): Promise<string> {
  const { server, port } = await startSite();
  const pageUrl = (i: number) => `http://127.0.0.1:${port}/p/${i}`;
  try {
    // Baseline: plain puppeteer-core, one browser, 4 tabs reused.
    const plain = await launchChromium({
      executablePath: process.env.BROWSER_EXECUTABLE ?? '/usr/bin/chromium',
      headless: true,
    });
    let baseline: number;
    try {
      const tabs = await Promise.all(Array.from({ length: IN_FLIGHT }, () => plain.browser.newPage()));
      const work = async (i: number, lane: number) => {
        const tab = tabs[lane]!;
        await tab.goto(pageUrl(i), { waitUntil: 'load' });
        return tab.content();
      };
      await measure(IN_FLIGHT * 2, IN_FLIGHT, work); // warm
      baseline = await measure(PAGES, IN_FLIGHT, work);
    } finally {
      await plain.browser.close();
      await plain.cleanup();
    }

    // The naive way (issue 3's other baseline): a browser launched and closed for every page.
    const LAUNCHED_PAGES = Math.min(PAGES, 12);
    const perLaunch = await measure(LAUNCHED_PAGES, IN_FLIGHT, async (i) => {
      const one = await launchChromium({
        executablePath: process.env.BROWSER_EXECUTABLE ?? '/usr/bin/chromium',
        headless: true,
      });
      try {
        const tab = await one.browser.newPage();
        await tab.goto(pageUrl(i), { waitUntil: 'load' });
        return await tab.content();
      } finally {
        await one.browser.close();
        await one.cleanup();
      }
    });

    // The pool: 2 browsers × 2 lanes by default (one per core; BENCH_POOL_BROWSERS and
    // BENCH_POOL_TABS try other layouts), guard proxy on, media blocked (no screenshot).
    const app = await buildApp(
      loadConfig({
        BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
        BROWSER_POOL_BROWSERS: process.env.BENCH_POOL_BROWSERS ?? '2',
        BROWSER_POOL_TABS_PER_BROWSER: process.env.BENCH_POOL_TABS ?? '2',
        FETCH_ALLOW_NETWORKS: '127.0.0.0/8',
        LOG_LEVEL: 'warn',
      }),
    );
    await app.start();
    let pool: number;
    try {
      const work = async (i: number) => {
        const res = await app.renderer.render({
          url: pageUrl(i),
          headers: {},
          cookies: [],
          viewportWidth: 0,
          viewportHeight: 0,
          waitUntil: 'load',
          waitForMs: 0,
          waitForSelector: '',
          timeoutMs: 30_000,
          screenshot: false,
          screenshotFullPage: false,
          screenshotFormat: '',
          screenshotQuality: 0,
          useExit: false,
          blockMedia: true,
          maxHtmlBytes: 0,
        });
        return res.html;
      };
      await measure(IN_FLIGHT * 2, IN_FLIGHT, work); // warm
      pool = await measure(PAGES, IN_FLIGHT, work);
    } finally {
      await app.stop();
    }

    return [
      '',
      `browser tier, ${PAGES} local article pages (8 images at ${ASSET_DELAY_MS} ms each), ${IN_FLIGHT} in flight, ${new Date().toISOString()}`,
      `baseline: 1 Chromium, ${IN_FLIGHT} reused tabs, goto(load)+content   ${baseline.toFixed(2).padStart(7)} pages/s`,
      `browser-pool: ${process.env.BENCH_POOL_BROWSERS ?? '2'}×${process.env.BENCH_POOL_TABS ?? '2'} hidden wiped lanes, guard proxy, block_media ${pool.toFixed(2).padStart(7)} pages/s`,
      `ratio pool / baseline: ${(pool / baseline).toFixed(3)} (target ≥ 1.5)`,
      `a browser launched per page (${LAUNCHED_PAGES} pages)     ${perLaunch.toFixed(2).padStart(7)} pages/s; pool / that ${(pool / perLaunch).toFixed(2)}`,
      '',
    ].join('\n');
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
