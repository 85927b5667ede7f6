// Content pipeline speed against two baselines measured in the same process on the same pages:
// a bare linkedom parse (the brief's target: pipeline ≤ 1.5× parse) and Readability + Turndown.
// linkedom is the one the fleet runs: patched (patches/, ADR 12), which made its parse ~2× faster
// than linkedom as published; the baseline got faster with it, so the ratio is the stricter one.
// Called by test/bench/run.ts; `node --import tsx test/bench/content.bench.ts` runs it alone.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseHTML } from 'linkedom';
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { readabilityMarkdown } from '../../libs/content/test/support/readability-baseline.js';

const PAGES_DIR = process.env.WCXB_HTML_DIR ?? '/work/shared/extraction/wcxb/dev/html';
const SAMPLE = Number(process.env.BENCH_CONTENT_PAGES ?? 100);
const ROUNDS = Number(process.env.BENCH_CONTENT_ROUNDS ?? 5);

interface Page {
  html: string;
  url: string;
}

/** Every n-th page of the development set, so the sample spans all page types. */
function samplePages(): Page[] {
  const files = fs
    .readdirSync(PAGES_DIR)
    .filter((f) => f.endsWith('.html.gz'))
    .sort();
  const step = Math.max(1, Math.floor(files.length / SAMPLE));
  return files
    .filter((_, i) => i % step === 0)
    .slice(0, SAMPLE)
    .map((f) => ({
      html: zlib.gunzipSync(fs.readFileSync(path.join(PAGES_DIR, f))).toString('utf8'),
      url: `https://bench.example/${f.replace(/\.html\.gz$/, '')}`,
    }));
}

/**
 * Best of several rounds, in ms per page, for each piece of work; the rounds of all of them
 * alternate (a, b, c, a, b, c, …) so a burst of other work on the machine falls on every side
 * alike instead of on whichever ran during it.
 */
function msPerPage(pages: Page[], works: ((p: Page) => unknown)[]): number[] {
  for (const work of works) for (const p of pages.slice(0, 10)) work(p); // warm the JIT
  const best = works.map(() => Infinity);
  for (let r = 0; r < ROUNDS; r++) {
    works.forEach((work, i) => {
      const t0 = process.hrtime.bigint();
      for (const p of pages) work(p);
      best[i] = Math.min(best[i]!, Number(process.hrtime.bigint() - t0) / 1e6 / pages.length);
    });
  }
  return best;
}

export async function benchContent(): Promise<string> {
  const pages = samplePages();
  const kb = pages.reduce((n, p) => n + p.html.length, 0) / pages.length / 1024;
  const [parse, pipeline, readability] = msPerPage(pages, [
    (p) => parseHTML(p.html),
    (p) => extractContent(parseDocument(p.html), { url: p.url, formats: ['markdown'], onlyMainContent: true }),
    (p) => readabilityMarkdown(p.html),
  ]) as [number, number, number];
  const row = (name: string, ms: number) => `${name.padEnd(46)} ${ms.toFixed(2).padStart(8)} ms/page`;
  return [
    '',
    `Content pipeline, ${pages.length} WCXB pages (mean ${kb.toFixed(0)} KB), best of ${ROUNDS} interleaved rounds, ${new Date().toISOString()}`,
    row('linkedom parseHTML, bare (baseline)', parse),
    row('parse + extractContent (markdown, main only)', pipeline),
    row('Readability + Turndown on linkedom', readability),
    `pipeline / parse        ${(pipeline / parse).toFixed(2)}×  (target ≤ 1.5×)`,
    `pipeline / readability  ${(pipeline / readability).toFixed(2)}×`,
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  process.stdout.write(await benchContent());
}
