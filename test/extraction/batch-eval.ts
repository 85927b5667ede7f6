// Iteration aid for main-content extraction: runs an extractor over the WCXB development set in
// one process and prints the same bag-of-words metric as eval.mjs (whose scoring functions it
// imports). eval.mjs, spawning one process per page, gives the same figures (checked to the third
// decimal); with two extractors (tidemark,readability) it prints EXTRACTION.md's table of both.
//
//   node --import tsx test/extraction/batch-eval.ts [--extractor tidemark,readability,page] [--type T]
//        [--per-page FILE] [--ids 0003,0005] [--dump DIR] [--block-models FILE | --no-block-model]
//
// --block-models FILE: cross-validation of the block model (libs/content/src/block-model.ts):
// FILE (written by libs/content/scripts/train-block-model.ts cv --models FILE) holds one model
// per fold and each page's fold; every page is extracted with the model of the fold that did
// not see it in training. --no-block-model: the rules alone.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import type { BlockModel } from '../../libs/content/src/block-model.js';
import { REFINE, TUNING } from '../../libs/content/src/main-content.js';
import { readabilityMarkdown } from '../../libs/content/test/support/readability-baseline.js';
import { wcxbDevPages } from './wcxb-pages.js';

const EVAL = process.env.WCXB_EVAL ?? '/work/shared/extraction/eval.mjs';

interface Scores {
  precision: number;
  recall: number;
  f1: number;
}
interface EvalModule {
  stripMarkdown(md: string): string;
  wcxbPage(ref: string, pred: string): Scores;
}

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};

const extractors: Record<string, (html: string, url: string) => string> = {
  tidemark: (html, url) =>
    extractContent(parseDocument(html), { url, formats: ['markdown'], onlyMainContent: true }).markdown ?? '',
  readability: (html) => readabilityMarkdown(html),
  // The whole page as markdown: its recall is the most any extractor can find of the truth in
  // the HTML as served (pages that render their content from script data score near 0).
  page: (html, url) =>
    extractContent(parseDocument(html), { url, formats: ['markdown'], onlyMainContent: false }).markdown ?? '',
};

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<void> {
  const ev = (await import(EVAL)) as EvalModule;
  // TUNE='{"blockCost":8}' tries other knob values without editing the lib.
  if (process.env.TUNE) Object.assign(TUNING, JSON.parse(process.env.TUNE));
  const names = (arg('extractor') ?? 'tidemark').split(',');
  for (const name of names) if (!extractors[name]) throw new Error(`unknown extractor ${name}`);
  let pages = wcxbDevPages();
  const type = arg('type');
  if (type) pages = pages.filter((p) => p.type === type);
  const ids = arg('ids')?.split(',');
  if (ids) pages = pages.filter((p) => ids.includes(p.id));
  const dump = arg('dump');
  if (dump) fs.mkdirSync(dump, { recursive: true });
  const shipped = REFINE.model;
  const cv = arg('block-models');
  const folds = cv
    ? (JSON.parse(fs.readFileSync(cv, 'utf8')) as { fold: Record<string, number>; models: BlockModel[] })
    : null;
  if (process.argv.includes('--no-block-model')) REFINE.model = null;
  const runs = new Map<string, Row[]>(names.map((n) => [n, []]));
  let empty = 0;
  for (const p of pages) {
    const html = zlib.gunzipSync(fs.readFileSync(p.file)).toString('utf8');
    if (folds) {
      const f = folds.fold[p.id];
      if (f === undefined) throw new Error(`page ${p.id} has no fold in ${cv}`);
      REFINE.model = folds.models[f]!;
    }
    for (const name of names) {
      let out = '';
      try {
        out = extractors[name]!(html, p.url);
      } catch (err) {
        process.stderr.write(`${p.id}: ${String(err)}\n`);
      }
      if (dump && name === names[0]) fs.writeFileSync(path.join(dump, `${p.id}.md`), out);
      const stripped = ev.stripMarkdown(out);
      if (name === names[0] && p.ref.trim() && !/[\p{L}\p{N}]/u.test(stripped)) empty++;
      runs.get(name)!.push({ id: p.id, type: p.type, ...ev.wcxbPage(p.ref, stripped) });
    }
  }
  REFINE.model = shipped;
  for (const name of names) report(name, runs.get(name)!);
  console.log(`${names[0]}: ${empty} pages with an empty output where the ground truth is not empty`);
  if (names.length > 1) console.log(markdownTable(names, runs));
}

type Row = Scores & { id: string; type: string };

/** The EXTRACTION.md table: per type, F1 and P / R of each extractor, the first one last. */
function markdownTable(names: string[], runs: Map<string, Row[]>): string {
  const [ours, ...others] = names;
  const all = runs.get(ours!)!;
  const types = ['all', ...[...new Set(all.map((r) => r.type))].sort()];
  const pick = (rows: Row[], t: string) => (t === 'all' ? rows : rows.filter((r) => r.type === t));
  const f = (x: number) => x.toFixed(3);
  const head = [
    'page type',
    'n',
    ...others.map((o) => `${o} F1`),
    `${ours} F1`,
    ...others.map((o) => `${o} P / R`),
    `${ours} P / R`,
  ];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`];
  for (const t of types) {
    const cells = [t === 'all' ? '**all**' : t, String(pick(all, t).length)];
    for (const o of others) cells.push(f(mean(pick(runs.get(o)!, t).map((r) => r.f1))));
    cells.push(`**${f(mean(pick(all, t).map((r) => r.f1)))}**`);
    for (const n of [...others, ours!]) {
      const rs = pick(runs.get(n)!, t);
      cells.push(`${f(mean(rs.map((r) => r.precision)))} / ${f(mean(rs.map((r) => r.recall)))}`);
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function report(name: string, rows: Row[]): void {
  const line = (label: string, rs: Scores[]) =>
    `${label.padEnd(14)} n=${String(rs.length).padStart(4)}  F1 ${mean(rs.map((r) => r.f1)).toFixed(3)}  P ${mean(rs.map((r) => r.precision)).toFixed(3)}  R ${mean(rs.map((r) => r.recall)).toFixed(3)}`;
  console.log(`${name}: ${line('all', rows)}`);
  for (const t of [...new Set(rows.map((r) => r.type))].sort())
    console.log(
      `  ${line(
        t,
        rows.filter((r) => r.type === t),
      )}`,
    );
  const perPage = arg('per-page');
  if (perPage && name === (arg('extractor') ?? 'tidemark').split(',')[0]) {
    const body = rows.map((r) =>
      [r.id, r.type, r.precision.toFixed(3), r.recall.toFixed(3), r.f1.toFixed(3)].join('\t'),
    );
    fs.writeFileSync(perPage, ['id\ttype\tP\tR\tF1', ...body].join('\n') + '\n');
  }
}

await main();
