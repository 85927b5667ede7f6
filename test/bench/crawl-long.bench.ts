// A long crawl through the fleet (issue 14, item 4): BENCH_LONG_PAGES (default 100,000) pages of
// the crawl bench's news site at 10 in flight, the fleet in a process of its own sampled every
// second. Prints the rate over the first and the last 10% of the pages and the fleet's peak
// memory up to 10% of the pages and up to the end: a frontier in PostgreSQL should leave both
// flat. Not in `pnpm bench`'s default set (it takes half an hour here): `pnpm bench crawl-long`.
// BENCH_LONG_ENGINE=paged runs it on the paged crawl engine (ADR 13); leased (the default, ADR 14) otherwise.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchSite, startTestWeb } from '@tidemark/testkit';

const PAGES = Number(process.env.BENCH_LONG_PAGES ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CRAWL_CONCURRENCY ?? 10);
const ENGINE = process.env.BENCH_LONG_ENGINE ?? 'leased';
const runner = fileURLToPath(new URL('./crawl-runner.ts', import.meta.url));

interface Sample {
  s: number;
  done: number;
  rssMb: number;
}

export async function benchCrawlLong(): Promise<string> {
  if (ENGINE !== 'paged' && ENGINE !== 'leased') throw new Error(`BENCH_LONG_ENGINE is paged or leased, not ${ENGINE}`);
  const web = await startTestWeb();
  web.addSite('127.0.0.1', benchSite(Math.ceil(PAGES * 1.2)));
  const samplesFile = path.join(mkdtempSync(path.join(tmpdir(), 'crawl-long-')), 'samples.jsonl');
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        runner,
        ENGINE === 'leased' ? 'leased' : 'tidemark',
        `http://127.0.0.1:${web.port}/`,
        String(PAGES),
        String(CONCURRENCY),
      ],
      {
        env: { ...process.env, LOG_LEVEL: 'silent', BENCH_CRAWL_SAMPLES: samplesFile },
        maxBuffer: 16 << 20,
        timeout: 4 * 3600_000,
      },
    );
    const end = JSON.parse(stdout.trim().split('\n').at(-1)!) as { pages: number; seconds: number; maxRssMb: number };
    const samples = readFileSync(samplesFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Sample);
    const at = (done: number) => samples.find((x) => x.done >= done) ?? samples.at(-1)!;
    const tenth = Math.round(end.pages / 10);
    const first = at(tenth);
    const from = at(end.pages - tenth);
    const firstRate = first.done / first.s;
    const lastRate = (end.pages - from.done) / (end.seconds - from.s);
    const peakUpTo = (done: number) => Math.max(...samples.filter((x) => x.done <= done).map((x) => x.rssMb));
    const peakEarly = peakUpTo(tenth);
    const peakEnd = Math.max(end.maxRssMb, ...samples.map((x) => x.rssMb));
    return [
      `crawl of ${end.pages} pages of a ${Math.ceil(PAGES * 1.2)}-page local news site, ${CONCURRENCY} in flight, the fleet in its own process, CRAWL_ENGINE=${ENGINE}`,
      `  ${end.seconds.toFixed(0)} s in all, ${(end.pages / end.seconds).toFixed(0)} pages/s`,
      `  rate over the first 10% (${first.done} pages): ${firstRate.toFixed(1)} pages/s; over the last 10%: ${lastRate.toFixed(1)} pages/s; last / first ${(lastRate / firstRate).toFixed(2)} (target ≥ 0.8)`,
      `  fleet peak RSS up to ${tenth} pages: ${peakEarly} MB; up to ${end.pages}: ${peakEnd} MB; ratio ${(peakEnd / peakEarly).toFixed(2)} (target ≤ 1.2)`,
    ].join('\n');
  } finally {
    await web.close();
  }
}
