// The content pipeline now against an earlier version of it, interleaved round by round in one
// process against the same bare linkedom parse, so that load from other processes weighs on both
// alike (test/bench/content.bench.ts times its phases one after the other).
//   git archive <commit> libs/content/src | tar -x -C libs/content/scripts/.ab   (once)
//   node --import tsx libs/content/scripts/ab-bench.ts libs/content/scripts/.ab/libs/content/src [rounds] [--whole-page]
// --whole-page: the whole page's markdown (onlyMainContent false) instead of the main content's.
// The earlier copy must sit under libs/content so that it finds the same node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import * as now from '../src/index.js';

type Lib = Pick<typeof now, 'extractContent' | 'parseDocument'>;

const PAGES_DIR = process.env.WCXB_HTML_DIR ?? '/work/shared/extraction/wcxb/dev/html';
const [earlierSrc, roundsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const onlyMainContent = !process.argv.includes('--whole-page');
if (!earlierSrc) throw new Error('usage: ab-bench.ts <earlier libs/content/src> [rounds]');
const earlier = (await import(pathToFileURL(path.resolve(earlierSrc, 'index.ts')).href)) as Lib;
const ROUNDS = Number(roundsArg ?? 5);

const files = fs
  .readdirSync(PAGES_DIR)
  .filter((f) => f.endsWith('.html.gz'))
  .sort();
const step = Math.max(1, Math.floor(files.length / 100));
const pages = files
  .filter((_, i) => i % step === 0)
  .slice(0, 100)
  .map((f) => ({
    url: `https://bench.example/${f.replace(/\.html\.gz$/, '')}`,
    html: zlib.gunzipSync(fs.readFileSync(path.join(PAGES_DIR, f))).toString('utf8'),
  }));

const pipeline = (lib: Lib) => () => {
  for (const p of pages) {
    lib.extractContent(lib.parseDocument(p.html), { url: p.url, formats: ['markdown'], onlyMainContent });
  }
};
const runs: Record<string, () => void> = {
  parse: () => {
    for (const p of pages) now.parseDocument(p.html);
  },
  earlier: pipeline(earlier),
  now: pipeline(now),
};
for (const run of Object.values(runs)) run(); // warm the JIT
const best: Record<string, number> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of Object.entries(runs)) {
    const t0 = process.hrtime.bigint();
    run();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / pages.length;
    best[name] = Math.min(best[name] ?? Infinity, ms);
  }
}
const ratio = (name: string) => `${best[name]!.toFixed(2)} ms/page (${(best[name]! / best.parse!).toFixed(2)}×)`;
console.log(
  `parse ${best.parse!.toFixed(2)} ms/page, earlier pipeline ${ratio('earlier')}, pipeline now ${ratio('now')}, best of ${ROUNDS}`,
);
