// The http rung through the whole fleet (gateway → scrape over gRPC → ladder → content → billing
// → row stored) against raw got fetching the same pages at the same concurrency.
import got from 'got';
import { startTestWeb } from '@tidemark/testkit';
import { startTestFleet } from '../support/fleet.js';
import { benchWorkspace } from './bench-workspace.js';

const PAGES = Number(process.env.BENCH_SCRAPE_PAGES ?? 200);
const CONCURRENCY = 8;

const pool = async <T>(items: T[], n: number, fn: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
};

export async function benchScrape(): Promise<string> {
  const web = await startTestWeb();
  const t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap });
  try {
    const ws = await benchWorkspace(t);
    const hosts = ['a.test', 'b.test', 'c.test', 'd.test'];
    const urls = Array.from({ length: PAGES }, (_, i) => web.url(hosts[i % 4]!, `/p/${i % 100}`));
    // The same pages straight from the test web, its Host header naming the site.
    const direct = urls.map((u) => ({
      url: u.replace(/^http:\/\/[a-d]\.test:/, 'http://127.0.0.1:'),
      host: new URL(u).hostname,
    }));

    let t0 = performance.now();
    await pool(
      direct,
      CONCURRENCY,
      async (d) => void (await got(d.url, { headers: { host: d.host }, retry: { limit: 0 } }).text()),
    );
    const gotRate = PAGES / ((performance.now() - t0) / 1000);

    let failed = 0;
    t0 = performance.now();
    await pool(urls, CONCURRENCY, async (url) => {
      const res = await t.call('POST', '/scrape', { key: ws.apiKey, body: { url, formats: 'markdown' } });
      if (res.status !== 200 || res.body.data[0].verdict !== 'ok') failed++;
    });
    const oursRate = PAGES / ((performance.now() - t0) / 1000);
    if (failed) throw new Error(`${failed} scrapes did not read ok; the figure would lie`);
    return [
      `http-rung scrapes, ${PAGES} pages, ${CONCURRENCY} in flight`,
      `  baseline: raw got, same pages            ${gotRate.toFixed(0).padStart(6)} pages/s`,
      `  tidemark POST /v1/scrape (whole fleet)   ${oursRate.toFixed(0).padStart(6)} pages/s`,
      `  ratio tidemark / got: ${(oursRate / gotRate).toFixed(3)}`,
    ].join('\n');
  } finally {
    await t.stop();
    await web.close();
  }
}
