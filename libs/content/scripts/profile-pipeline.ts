// Where the content pipeline's time goes, stage by stage, on the benchmark's WCXB sample.
//   node --import tsx libs/content/scripts/profile-pipeline.ts          CPU ms/page per stage
//   node --single-threaded-gc --import tsx libs/content/scripts/profile-pipeline.ts
//                                     (garbage collection then counts on the stage that caused it)
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx libs/content/scripts/profile-pipeline.ts
//   PROFILE_PAGES=2905,4369 node --import tsx libs/content/scripts/profile-pipeline.ts
//                                     (those pages only, each stage printed for each page)
// The stages replay extractContent's steps for the benchmark's request (markdown, main content
// only); the last line times extractContent itself on the same pages. CPU time of the process
// rather than wall time, so that other work on the machine matters less.
import { cleanDocument } from '../src/clean.js';
import { contentBlocks } from '../src/compact-html.js';
import { scanPage } from '../src/dom-walk.js';
import { extractContent } from '../src/extract-content.js';
import { readHead } from '../src/head.js';
import { detectLanguage } from '../src/language.js';
import { findMainContent } from '../src/main-content.js';
import { blocksToMarkdown } from '../src/markdown.js';
import { parseDocument } from '../src/parse-document.js';
import { NameMatcher } from '../src/patterns.js';
import { countWords, toText } from '../src/text.js';
import { urlResolver } from '../src/urls.js';
import { samplePages } from './sample-pages.js';

const SAMPLE = Number(process.env.BENCH_CONTENT_PAGES ?? 100);
const ROUNDS = Number(process.env.BENCH_CONTENT_ROUNDS ?? 3);

const only = process.env.PROFILE_PAGES?.split(',');
const pages = samplePages(SAMPLE, only);

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const totals = new Map<string, number>();
/** With PROFILE_PAGES: each page's stages, from its last round. */
const byPage = new Map<string, Map<string, number>>();
let current = '';
function time<T>(stage: string, fn: () => T): T {
  const t0 = cpuMs();
  const out = fn();
  const ms = cpuMs() - t0;
  totals.set(stage, (totals.get(stage) ?? 0) + ms);
  if (only) byPage.set(current, (byPage.get(current) ?? new Map<string, number>()).set(stage, ms));
  return out;
}

const perPage = new Map<string, number>();
for (let r = 0; r < ROUNDS; r++) {
  for (const p of pages) {
    const url = `https://bench.example/${p.id}`;
    current = p.id;
    const t0 = cpuMs();
    const doc = time('parse', () => parseDocument(p.html));
    const scan = time('scan', () => scanPage(doc));
    const head = time('head', () => readHead(doc, url, null, scan));
    const names = new NameMatcher();
    time('clean', () =>
      cleanDocument(doc, {
        url,
        removeBanners: true,
        removeBase64Images: true,
        excludeTags: [],
        stripAttributes: false,
        resolveUrls: false,
        scan,
        names,
      }),
    );
    const body = doc.body ?? doc.documentElement;
    const main = time('main content', () => findMainContent(body, names));
    for (const el of main.pruned) el.remove();
    const text = time('text', () => toText([main.root]));
    const blocks = time('blocks', () => contentBlocks([main.root]));
    time('markdown (NHM)', () => blocksToMarkdown(blocks, false, urlResolver(url)));
    time('words + language', () => [countWords(text), detectLanguage(head.lang, text)]);
    perPage.set(p.id, Math.min(perPage.get(p.id) ?? Infinity, cpuMs() - t0));
  }
}
const n = pages.length * ROUNDS;
for (const [stage, ms] of totals) console.log(`${stage.padEnd(18)} ${(ms / n).toFixed(2).padStart(6)} CPU ms/page`);
for (const [id, stages] of byPage)
  console.log(
    `${id} (${pages.find((p) => p.id === id)!.html.length} chars): ${[...stages].map(([k, ms]) => `${k} ${ms.toFixed(1)}`).join(', ')}`,
  );
const slow = [...perPage].sort((a, b) => b[1] - a[1]).slice(0, 8);
console.log('slowest pages:', slow.map(([id, ms]) => `${id} ${ms.toFixed(1)}`).join(', '));

let whole = 0;
for (const p of pages) {
  const doc = parseDocument(p.html);
  const t0 = cpuMs();
  extractContent(doc, { url: `https://bench.example/${p.id}`, formats: ['markdown'], onlyMainContent: true });
  whole += cpuMs() - t0;
}
console.log(
  `extractContent     ${(whole / pages.length).toFixed(2).padStart(6)} CPU ms/page (one round, parse excluded)`,
);
