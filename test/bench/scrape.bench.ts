// The http rung through the whole fleet (gateway → scrape over gRPC → ladder → content → billing
// → row stored) against the same work done bare in this process, on real-sized pages (the crawl
// bench's news site, 15-40 KB a page):
//   - one scrape at a time: POST /v1/scrape of one page against got + parse + markdown of the
//     same page here (libs/content, the reading the fleet does), median and p95;
//   - batches: POST /v1/scrape with 8 in flight against raw got fetching the same pages.
import got from 'got';
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { benchSite, startTestWeb } from '@tidemark/testkit';
import { startTestFleet } from '../support/fleet.js';
import { batchEndHooks, batchThroughApi } from './batch-through-api.js';
import { benchWorkspace } from './bench-workspace.js';

// 500: the most one batch takes, so that its start and the first pages' warm-up are not most of
// what the batch job's figure measures (at 200 they were, and a cost that grows with the batch
// could not show).
const PAGES = Number(process.env.BENCH_SCRAPE_PAGES ?? 500);
const SINGLE = Number(process.env.BENCH_SCRAPE_SINGLE ?? 100);
const CONCURRENCY = 8;
const HOSTS = ['a.bench.test', 'b.bench.test', 'c.bench.test', 'd.bench.test'];

const pool = async <T>(items: T[], n: number, fn: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
};

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

export async function benchScrape(): Promise<string> {
  const web = await startTestWeb();
  for (const host of HOSTS) web.addSite(host, benchSite(PAGES));
  // BENCH_FLEET_ENV='{"SCRAPE_READ_THREADS":"2"}': any of the fleet's settings, for an A/B.
  const fleetEnv = process.env.BENCH_FLEET_ENV
    ? (JSON.parse(process.env.BENCH_FLEET_ENV) as Record<string, string>)
    : {};
  const t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, ...fleetEnv });
  try {
    const ws = await benchWorkspace(t);
    const urls = Array.from({ length: PAGES }, (_, i) => web.url(HOSTS[i % HOSTS.length]!, `/news/${i}`));
    // The same pages straight from the test web, its Host header naming the site.
    const direct = (u: string) => ({
      url: `http://127.0.0.1:${web.port}${new URL(u).pathname}`,
      host: new URL(u).hostname,
    });
    const bare = async (u: string) => {
      const d = direct(u);
      const html = await got(d.url, { headers: { host: d.host }, retry: { limit: 0 } }).text();
      return extractContent(parseDocument(html), { url: u, formats: ['markdown'], onlyMainContent: true });
    };
    const scrape = async (url: string) => {
      const res = await t.call('POST', '/scrape', { key: ws.apiKey, body: { url, formats: 'markdown' } });
      if (res.status !== 200 || res.body.data[0].verdict !== 'ok')
        throw new Error(
          `a scrape did not read ok (${res.status} ${JSON.stringify(res.body).slice(0, 300)}); the figure would lie`,
        );
    };

    // One at a time, alternating bare and fleet page by page, after a warm-up of both.
    for (const u of urls.slice(0, 10)) {
      await bare(u);
      await scrape(u);
    }
    const bareMs: number[] = [];
    const oursMs: number[] = [];
    for (const u of urls.slice(10, 10 + SINGLE)) {
      let t0 = performance.now();
      await bare(u);
      bareMs.push(performance.now() - t0);
      t0 = performance.now();
      await scrape(u);
      oursMs.push(performance.now() - t0);
    }

    let t0 = performance.now();
    await pool(urls.map(direct), CONCURRENCY, async (d) => {
      await got(d.url, { headers: { host: d.host }, retry: { limit: 0 } }).text();
    });
    const gotRate = PAGES / ((performance.now() - t0) / 1000);
    t0 = performance.now();
    await pool(urls, CONCURRENCY, scrape);
    const oursRate = PAGES / ((performance.now() - t0) / 1000);

    // A batch job: one POST of every URL, 2 in flight to each of the 4 hosts (8 in all), its end
    // learnt by polling every 20 ms, or from its webhook (batch.finished) as a client that does
    // not poll learns it; two of each, alternating, on other addresses than the calls' (a query:
    // nothing is served from a stored copy). A small batch first, untimed, warms the batch path
    // as the calls' warm-up does theirs (the reading threads that only batch and crawl pages use
    // start with it).
    const hooks = batchEndHooks(web);
    const batch = (batchUrls: string[], hooked: boolean) =>
      batchThroughApi(t.call, ws.apiKey, batchUrls, CONCURRENCY / HOSTS.length, hooked ? hooks : undefined);
    await batch(
      urls.slice(0, 200).map((u) => `${u}?warm-up`),
      true,
    );
    const polled: number[] = [];
    const hooked: number[] = [];
    for (const round of [1, 2]) {
      polled.push(
        await batch(
          urls.map((u) => `${u}?batch-polled-${round}`),
          false,
        ),
      );
      hooked.push(
        await batch(
          urls.map((u) => `${u}?batch-hooked-${round}`),
          true,
        ),
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const batchRate = mean(polled);
    const hookedRate = mean(hooked);

    const ms = (x: number) => `${x.toFixed(1).padStart(6)} ms`;
    return [
      `one page at a time, ${oursMs.length} pages of 15-40 KB (median / p95)`,
      `  baseline: got + parse + markdown here    ${ms(quantile(bareMs, 0.5))} / ${ms(quantile(bareMs, 0.95))}`,
      `  tidemark POST /v1/scrape (whole fleet)   ${ms(quantile(oursMs, 0.5))} / ${ms(quantile(oursMs, 0.95))}`,
      `  ratio tidemark / bare: median ${(quantile(oursMs, 0.5) / quantile(bareMs, 0.5)).toFixed(2)}, p95 ${(quantile(oursMs, 0.95) / quantile(bareMs, 0.95)).toFixed(2)} (target ≤ 1.2)`,
      `batches: ${PAGES} pages, ${CONCURRENCY} in flight`,
      `  baseline: raw got, same pages            ${gotRate.toFixed(0).padStart(6)} pages/s`,
      `  tidemark POST /v1/scrape (whole fleet)   ${oursRate.toFixed(0).padStart(6)} pages/s`,
      `  ratio tidemark / got: ${(oursRate / gotRate).toFixed(3)} (target ≥ 0.5)`,
      `  tidemark batch job (urls[], 2 a host), polled every 20 ms       ${batchRate.toFixed(0).padStart(6)} pages/s (mean of ${polled.map((r) => r.toFixed(0)).join(', ')})`,
      `  ratio tidemark batch job / got: ${(batchRate / gotRate).toFixed(3)} (target ≥ 0.5)`,
      `  tidemark batch job, its end from its webhook (no polls)  ${hookedRate.toFixed(0).padStart(6)} pages/s (mean of ${hooked.map((r) => r.toFixed(0)).join(', ')})`,
      `  ratio tidemark batch job (webhook) / got: ${(hookedRate / gotRate).toFixed(3)} (target ≥ 0.5)`,
    ].join('\n');
  } finally {
    await t.stop();
    await web.close();
  }
}
