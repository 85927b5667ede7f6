// Trains the block model (src/block-model.ts) on the WCXB development split and writes its
// weights (src/block-model.weights.ts).
//
//   node --import tsx libs/content/scripts/train-block-model.ts collect      # blocks + features → /tmp
//   node --import tsx libs/content/scripts/train-block-model.ts cv           # 5-fold estimate (simulated)
//   node --import tsx libs/content/scripts/train-block-model.ts cv --models /tmp/cv-models.json
//        (then: batch-eval.ts --block-models /tmp/cv-models.json scores the real pipeline, each page
//         with the model of the fold that did not see it)
//   node --import tsx libs/content/scripts/train-block-model.ts fit --write  # all pages → weights
//   node_modules/.bin/prettier --write libs/content/src/block-model.weights.ts
//
// Labels come from the ground truth by the benchmark's own metric: a block of the winner is
// boilerplate when leaving it out alone raises the page's bag-of-words F1, and it weighs by how
// much (a page counts as much as another, as in the benchmark's average). Folds group pages by
// host, so that a site's template is never on both sides of a split; the host chooses the fold
// and nothing else (no feature names a site). Options: --trees N --depth D --rate R
// --threshold T --max-drop S --folds K --data FILE.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import zlib from 'node:zlib';
import type { BlockModel } from '../src/block-model.js';
import { extractContent } from '../src/extract-content.js';
import { BLOCK_FEATURES, REFINE } from '../src/main-content.js';
import { parseDocument } from '../src/parse-document.js';
import { wcxbDevPages } from '../../../test/extraction/wcxb-pages.js';

const EVAL = process.env.WCXB_EVAL ?? '/work/shared/extraction/eval.mjs';
const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : (process.argv[i + 1] ?? fallback);
};
const DATA = arg('data', '/tmp/block-data.v8');
const WIDTH = BLOCK_FEATURES.length;

interface PageData {
  id: string;
  type: string;
  host: string;
  /** Ground-truth and output token counts (the output is the pipeline's without the model). */
  gt: Map<string, number>;
  out: Map<string, number>;
  /** Per block: its characters, its tokens, its feature row. */
  chars: number[];
  tokens: string[][];
  x: Float32Array;
}

const WORD_RE = /[\p{L}\p{N}_]+/gu;
const tokenize = (t: string): string[] => t.toLowerCase().match(WORD_RE) ?? [];
const counts = (toks: string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const t of toks) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
};

async function collect(): Promise<void> {
  const ev = (await import(EVAL)) as { stripMarkdown(md: string): string };
  const pages: PageData[] = [];
  let blocks: Element[] = [];
  let features = new Float64Array(0);
  REFINE.model = null;
  REFINE.observe = (b, x) => {
    blocks = b;
    features = x;
  };
  for (const { id, type, url, ref, file } of wcxbDevPages()) {
    const html = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
    blocks = [];
    features = new Float64Array(0);
    let md = '';
    // The observer sees the blocks before the pipeline removes what it leaves out.
    const texts: string[] = [];
    REFINE.observe = (b, x) => {
      blocks = b;
      features = x;
      for (const e of b) texts.push(e.textContent ?? '');
    };
    try {
      md = extractContent(parseDocument(html), { url, formats: ['markdown'], onlyMainContent: true }).markdown ?? '';
    } catch (err) {
      process.stderr.write(`${id}: ${String(err)}\n`);
    }
    let host = '';
    try {
      host = new URL(url).hostname.replace(/^www\./, '');
    } catch {
      host = id;
    }
    pages.push({
      id,
      type,
      host,
      gt: counts(tokenize(ref)),
      out: counts(tokenize(ev.stripMarkdown(md))),
      chars: blocks.map((_, r) => Math.round(Math.expm1(features[r * WIDTH]!))),
      tokens: texts.map(tokenize),
      x: Float32Array.from(features),
    });
  }
  REFINE.observe = null;
  fs.writeFileSync(DATA, v8.serialize({ features: BLOCK_FEATURES, pages }));
  const n = pages.reduce((s, p) => s + p.chars.length, 0);
  console.log(`${pages.length} pages, ${n} blocks, ${WIDTH} features → ${DATA}`);
}

function load(): PageData[] {
  const d = v8.deserialize(fs.readFileSync(DATA)) as { features: string[]; pages: PageData[] };
  if (d.features.join() !== BLOCK_FEATURES.join()) throw new Error('features changed since collect: run collect again');
  return d.pages;
}

// ---------------------------------------------------------------- the metric, simulated

interface Score {
  precision: number;
  recall: number;
  f1: number;
}

/** The page's score when the blocks marked in `drop` are left out of the output. */
function pageScore(p: PageData, drop: (r: number) => boolean): Score {
  const out = new Map(p.out);
  for (let r = 0; r < p.tokens.length; r++) {
    if (!drop(r)) continue;
    for (const t of p.tokens[r]!) {
      const c = out.get(t);
      if (c) out.set(t, c - 1);
    }
  }
  return score(p.gt, out);
}

function score(gt: Map<string, number>, out: Map<string, number>): Score {
  let nr = 0;
  let np = 0;
  let overlap = 0;
  for (const c of gt.values()) nr += c;
  for (const [k, c] of out) {
    np += c;
    overlap += Math.min(c, gt.get(k) ?? 0);
  }
  if (!nr) return np ? { precision: 0, recall: 0, f1: 0 } : { precision: 1, recall: 1, f1: 1 };
  if (!np) return { precision: 0, recall: 0, f1: 0 };
  const precision = overlap / np;
  const recall = overlap / nr;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** Per block: how much leaving it out alone changes the page's F1. */
function marginalGains(p: PageData, out = p.out, dropped?: Uint8Array): Float64Array {
  let nr = 0;
  let np = 0;
  let overlap = 0;
  for (const c of p.gt.values()) nr += c;
  for (const [k, c] of out) {
    np += c;
    overlap += Math.min(c, p.gt.get(k) ?? 0);
  }
  const f1 = (ov: number, n: number): number => (nr && n ? (2 * ov) / (n + nr) : 0);
  const base = f1(overlap, np);
  const gains = new Float64Array(p.tokens.length);
  for (let r = 0; r < p.tokens.length; r++) {
    const b = counts(p.tokens[r]!);
    let lostOverlap = 0;
    let lost = 0;
    if (dropped?.[r]) {
      // Put back: the gain of leaving it out is the loss of putting it back.
      for (const [k, c] of b) {
        const o = out.get(k) ?? 0;
        const g = p.gt.get(k) ?? 0;
        lost -= c;
        lostOverlap -= Math.min(o + c, g) - Math.min(o, g);
      }
    } else {
      for (const [k, c0] of b) {
        const o = out.get(k) ?? 0;
        const c = Math.min(c0, o);
        const g = p.gt.get(k) ?? 0;
        lost += c;
        lostOverlap += Math.min(o, g) - Math.min(o - c, g);
      }
    }
    gains[r] = f1(overlap - lostOverlap, np - lost) - base;
  }
  return gains;
}

/**
 * Labels that hold together: blocks are left out one by one, the largest gain first, each
 * gain measured against the output as it stands (dropping every block that gains alone would
 * take out the common words of the content many times over). A block is boilerplate when in
 * the set found; it weighs by what leaving it out (or putting it back) changes at the end.
 */
function greedyLabels(p: PageData): { y: Uint8Array; w: Float64Array } {
  const n = p.tokens.length;
  const y = new Uint8Array(n);
  const out = new Map(p.out);
  for (let pass = 0; pass < 3; pass++) {
    const gains = marginalGains(p, out, y);
    const order = [...gains.keys()].filter((r) => !y[r] && gains[r]! > 0).sort((a, b) => gains[b]! - gains[a]!);
    if (!order.length) break;
    for (const r of order) {
      const g = marginalGains({ ...p, tokens: [p.tokens[r]!] }, out)[0]!;
      if (g <= 0) continue;
      y[r] = 1;
      for (const t of p.tokens[r]!) {
        const c = out.get(t);
        if (c) out.set(t, c - 1);
      }
    }
  }
  const final = marginalGains(p, out, y);
  return { y, w: final.map((g) => Math.abs(g)) };
}

// ---------------------------------------------------------------- boosted trees

interface Options {
  trees: number;
  depth: number;
  rate: number;
  lambda: number;
  minChild: number;
  subsample: number;
  threshold: number;
  maxDrop: number;
}

const options = (): Options => ({
  trees: Number(arg('trees', '200')),
  depth: Number(arg('depth', '3')),
  rate: Number(arg('rate', '0.1')),
  lambda: Number(arg('lambda', '1')),
  minChild: Number(arg('min-child', '5')),
  subsample: Number(arg('subsample', '0.5')),
  threshold: Number(arg('threshold', '0.6')),
  maxDrop: Number(arg('max-drop', '0.3')),
});

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Samples {
  x: Float32Array;
  y: Uint8Array;
  w: Float64Array;
  n: number;
}

function samplesOf(pages: PageData[]): Samples {
  const n = pages.reduce((s, p) => s + p.chars.length, 0);
  const x = new Float32Array(n * WIDTH);
  const y = new Uint8Array(n);
  const w = new Float64Array(n);
  let at = 0;
  const greedy = process.argv.includes('--greedy');
  for (const p of pages) {
    x.set(p.x, at * WIDTH);
    if (greedy) {
      const l = greedyLabels(p);
      y.set(l.y, at);
      w.set(l.w, at);
    } else {
      const gains = marginalGains(p);
      for (let r = 0; r < gains.length; r++) {
        y[at + r] = gains[r]! > 0 ? 1 : 0;
        w[at + r] = Math.abs(gains[r]!);
      }
    }
    at += p.tokens.length;
  }
  // Weights on the scale of one: the regularisation and the minimum leaf weight read so.
  let sum = 0;
  for (const v of w) sum += v;
  const scale = n / Math.max(1e-12, sum);
  for (let i = 0; i < n; i++) w[i]! *= scale;
  return { x, y, w, n };
}

const BINS = 32;
/**
 * Features the trees may not split on (--exclude a,b; --exclude '' for none). By default the
 * figures of the page as a whole: with them the trees recognise the training pages (the
 * winner's length was the most used split) and do no better on pages they have not seen
 * (cross-validated 0.8689 with them, 0.8691 without).
 */
const EXCLUDED = new Set(
  arg('exclude', 'winner_log_chars,log_blocks,page_link_density,winner_link_density,winner_share_of_page')
    .split(',')
    .filter(Boolean)
    .map((f) => {
      const i = BLOCK_FEATURES.indexOf(f);
      if (i < 0) throw new Error(`no feature ${f}`);
      return i;
    }),
);

function train(s: Samples, o: Options): BlockModel {
  const { x, y, w, n } = s;
  // Cut points per feature: quantiles of a sample of its values.
  const random = rng(7);
  const cuts: Float64Array[] = [];
  const bins = new Uint8Array(n * WIDTH);
  for (let f = 0; f < WIDTH; f++) {
    const vals: number[] = [];
    for (let k = 0; k < 20000; k++) vals.push(x[Math.floor(random() * n) * WIDTH + f]!);
    vals.sort((a, b) => a - b);
    const c: number[] = [];
    for (let b = 1; b < BINS; b++) {
      const v = vals[Math.floor((b * vals.length) / BINS)]!;
      if (!c.length || v > c[c.length - 1]!) c.push(v);
    }
    // A cut at the largest value splits nothing.
    while (c.length && c[c.length - 1]! >= vals[vals.length - 1]!) c.pop();
    cuts.push(Float64Array.from(c));
    for (let i = 0; i < n; i++) {
      const v = x[i * WIDTH + f]!;
      let b = 0;
      while (b < c.length && v > c[b]!) b++;
      bins[f * n + i] = b;
    }
  }
  let pos = 0;
  let all = 0;
  for (let i = 0; i < n; i++) {
    all += w[i]!;
    if (y[i]) pos += w[i]!;
  }
  const bias = Math.log(Math.max(1e-9, pos) / Math.max(1e-9, all - pos));
  const z = new Float64Array(n).fill(bias);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const trees: number[][] = [];
  const histG = new Float64Array(WIDTH * BINS);
  const histH = new Float64Array(WIDTH * BINS);
  for (let t = 0; t < o.trees; t++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-z[i]!));
      g[i] = w[i]! * (p - y[i]!);
      h[i] = w[i]! * Math.max(p * (1 - p), 1e-6);
    }
    const rows: number[] = [];
    for (let i = 0; i < n; i++) if (random() < o.subsample) rows.push(i);
    // Level by level: each node holds its rows; nodes: [feature, threshold, left, right].
    const nodes: number[] = [];
    let frontier: { node: number; rows: number[] }[] = [{ node: 0, rows }];
    nodes.push(-1, 0, 0, 0);
    for (let d = 0; d <= o.depth; d++) {
      const next: typeof frontier = [];
      for (const { node, rows: r } of frontier) {
        let G = 0;
        let H = 0;
        for (const i of r) {
          G += g[i]!;
          H += h[i]!;
        }
        const leaf = (): void => {
          nodes[4 * node] = -1;
          nodes[4 * node + 1] = (-G / (H + o.lambda)) * o.rate;
        };
        if (d === o.depth || H < 2 * o.minChild) {
          leaf();
          continue;
        }
        histG.fill(0);
        histH.fill(0);
        for (let f = 0; f < WIDTH; f++) {
          const base = f * n;
          const hb = f * BINS;
          for (const i of r) {
            const b = hb + bins[base + i]!;
            histG[b]! += g[i]!;
            histH[b]! += h[i]!;
          }
        }
        const parentGain = (G * G) / (H + o.lambda);
        let best = 0;
        let bestF = -1;
        let bestB = -1;
        for (let f = 0; f < WIDTH; f++) {
          if (EXCLUDED.has(f)) continue;
          let gl = 0;
          let hl = 0;
          for (let b = 0; b < cuts[f]!.length; b++) {
            gl += histG[f * BINS + b]!;
            hl += histH[f * BINS + b]!;
            const hr = H - hl;
            if (hl < o.minChild || hr < o.minChild) continue;
            const gr = G - gl;
            const gain = (gl * gl) / (hl + o.lambda) + (gr * gr) / (hr + o.lambda) - parentGain;
            if (gain > best) {
              best = gain;
              bestF = f;
              bestB = b;
            }
          }
        }
        if (bestF < 0) {
          leaf();
          continue;
        }
        const left: number[] = [];
        const right: number[] = [];
        for (const i of r) (bins[bestF * n + i]! <= bestB ? left : right).push(i);
        const l = nodes.length / 4;
        nodes.push(-1, 0, 0, 0, -1, 0, 0, 0);
        nodes[4 * node] = bestF;
        nodes[4 * node + 1] = cuts[bestF]![bestB]!;
        nodes[4 * node + 2] = l;
        nodes[4 * node + 3] = l + 1;
        next.push({ node: l, rows: left }, { node: l + 1, rows: right });
      }
      frontier = next;
    }
    trees.push(nodes);
    for (let i = 0; i < n; i++) {
      let k = 0;
      while (nodes[4 * k]! >= 0)
        k = x[i * WIDTH + nodes[4 * k]!]! <= nodes[4 * k + 1]! ? nodes[4 * k + 2]! : nodes[4 * k + 3]!;
      z[i]! += nodes[4 * k + 1]!;
    }
  }
  return { features: BLOCK_FEATURES, bias, trees, threshold: o.threshold, maxDrop: o.maxDrop };
}

// ---------------------------------------------------------------- applying, as refine() does

function logits(model: BlockModel, p: PageData): Float64Array {
  const out = new Float64Array(p.chars.length);
  for (let r = 0; r < out.length; r++) {
    let z = model.bias;
    for (const t of model.trees) {
      let k = 0;
      while (t[4 * k]! >= 0) k = p.x[r * WIDTH + t[4 * k]!]! <= t[4 * k + 1]! ? t[4 * k + 2]! : t[4 * k + 3]!;
      z += t[4 * k + 1]!;
    }
    out[r] = z;
  }
  return out;
}

/** Blocks the model never leaves out, as refine() (--keep a,b to try others). */
const KEPT = arg('keep', 'tag_h1_h2,tag_h3_h6,tag_pre').split(',').filter(Boolean);
const GATE_LINKS = Number(arg('gate-links', '2'));
const GATE_LISTING = process.argv.includes('--gate-listing');

function dropped(model: BlockModel, p: PageData): Set<number> {
  if (!p.chars.length) return new Set();
  const at = (name: string): number => p.x[BLOCK_FEATURES.indexOf(name)]!;
  if ((GATE_LISTING && at('listing_reading')) || at('winner_link_density') > GATE_LINKS) return new Set();
  const z = logits(model, p);
  const cut = Math.log(model.threshold / (1 - model.threshold));
  const kept = KEPT.map((f) => BLOCK_FEATURES.indexOf(f));
  const order = [...z.keys()]
    .filter((r) => z[r]! >= cut && !kept.some((f) => p.x[r * WIDTH + f]))
    .sort((a, b) => z[b]! - z[a]!);
  let budget = model.maxDrop * p.chars.reduce((s, c) => s + c, 0);
  const out = new Set<number>();
  for (const r of order) {
    if (p.chars[r]! > budget) continue;
    budget -= p.chars[r]!;
    out.add(r);
  }
  return out;
}

function folds(pages: PageData[], k: number): number[] {
  // Hosts, largest first, each to the fold with the fewest pages so far.
  const byHost = new Map<string, number[]>();
  pages.forEach((p, i) => byHost.set(p.host, [...(byHost.get(p.host) ?? []), i]));
  const hosts = [...byHost.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const size = new Array<number>(k).fill(0);
  const fold = new Array<number>(pages.length).fill(0);
  for (const [, ids] of hosts) {
    const f = size.indexOf(Math.min(...size));
    for (const i of ids) fold[i] = f;
    size[f]! += ids.length;
  }
  return fold;
}

function report(pages: PageData[], rows: { base: Score; after: Score }[]): void {
  const types = ['all', ...[...new Set(pages.map((p) => p.type))].sort()];
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  for (const t of types) {
    const rs = rows.filter((_, i) => t === 'all' || pages[i]!.type === t);
    const f = (s: 'base' | 'after', m: keyof Score): string => mean(rs.map((r) => r[s][m])).toFixed(4);
    const up = rs.filter((r) => r.after.f1 > r.base.f1 + 0.005).length;
    const down = rs.filter((r) => r.after.f1 < r.base.f1 - 0.005).length;
    console.log(
      `${t.padEnd(14)} n=${String(rs.length).padStart(4)}  F1 ${f('base', 'f1')} → ${f('after', 'f1')}  P ${f('base', 'precision')} → ${f('after', 'precision')}  R ${f('base', 'recall')} → ${f('after', 'recall')}  up ${up} down ${down}`,
    );
  }
}

function crossValidate(): void {
  const pages = load();
  const o = options();
  const k = Number(arg('folds', '5'));
  const fold = folds(pages, k);
  const rows: { base: Score; after: Score }[] = pages.map(() => ({
    base: { precision: 0, recall: 0, f1: 0 },
    after: { precision: 0, recall: 0, f1: 0 },
  }));
  const models: BlockModel[] = [];
  const drops: string[][] = pages.map(() => []);
  const loaded = arg('load-models', '');
  const saved = loaded ? (JSON.parse(fs.readFileSync(loaded, 'utf8')) as { models: BlockModel[] }).models : null;
  for (let f = 0; f < k; f++) {
    const t0 = Date.now();
    const model = saved
      ? { ...saved[f]!, threshold: o.threshold, maxDrop: o.maxDrop }
      : train(samplesOf(pages.filter((_, i) => fold[i] !== f)), o);
    models.push(model);
    pages.forEach((p, i) => {
      if (fold[i] !== f) return;
      const drop = dropped(model, p);
      rows[i] = { base: pageScore(p, () => false), after: pageScore(p, (r) => drop.has(r)) };
      drops[i] = [...drop].map((r) => p.tokens[r]!.slice(0, 12).join(' '));
    });
    process.stderr.write(`fold ${f}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  console.log(`${k}-fold cross-validation by host (simulated on the block tokens), ${JSON.stringify(o)}`);
  report(pages, rows);
  if (process.argv.includes('--sweep')) {
    // Other cut-offs with the same fold models (a choice made looking at held-out pages: the
    // figures of the cut-off then chosen are a little optimistic).
    for (const threshold of [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85]) {
      for (const maxDrop of [0.3, 0.6, 0.9]) {
        const swept = pages.map((p, i) => {
          const drop = dropped({ ...models[fold[i]!]!, threshold, maxDrop }, p);
          return { base: rows[i]!.base, after: pageScore(p, (r) => drop.has(r)) };
        });
        console.log(`threshold ${threshold} max-drop ${maxDrop}`);
        report(pages, swept);
      }
    }
  }
  const perPage = arg('per-page', '');
  if (perPage) {
    // What the fold models left out, page by page (the first words of each block).
    const lines = pages.map((p, i) =>
      [
        p.id,
        p.type,
        rows[i]!.base.f1.toFixed(3),
        rows[i]!.after.f1.toFixed(3),
        ...['winner_share_of_page', 'winner_link_density', 'log_blocks', 'listing_reading', 'winner_log_chars'].map(
          (f) => (p.chars.length ? p.x[BLOCK_FEATURES.indexOf(f)]!.toFixed(2) : ''),
        ),
        drops[i]!.join(' | '),
      ].join('\t'),
    );
    fs.writeFileSync(perPage, lines.join('\n') + '\n');
  }
  const out = arg('models', '');
  if (out) {
    const byId: Record<string, number> = {};
    pages.forEach((p, i) => (byId[p.id] = fold[i]!));
    fs.writeFileSync(out, JSON.stringify({ fold: byId, models }));
    console.log(`fold models → ${out}`);
  }
}

function fit(): void {
  const pages = load();
  const o = options();
  const model = train(samplesOf(pages), o);
  const rows = pages.map((p) => {
    const drop = dropped(model, p);
    return { base: pageScore(p, () => false), after: pageScore(p, (r) => drop.has(r)) };
  });
  console.log(`fit on all ${pages.length} pages (simulated, scored on the same pages), ${JSON.stringify(o)}`);
  report(pages, rows);
  // Which features the trees split on, by the number of splits.
  const used = new Map<string, number>();
  for (const t of model.trees) {
    for (let k = 0; k < t.length; k += 4)
      if (t[k]! >= 0) used.set(BLOCK_FEATURES[t[k]!]!, (used.get(BLOCK_FEATURES[t[k]!]!) ?? 0) + 1);
  }
  console.log(
    [...used]
      .sort((a, b) => b[1] - a[1])
      .map(([f, c]) => `${f} ${c}`)
      .join(', '),
  );
  if (process.argv.includes('--write')) writeWeights(model);
}

function writeWeights(model: BlockModel): void {
  const round = (v: number): number => Number(v.toPrecision(6));
  const trees = model.trees.map((t) => `  [${t.map(round).join(', ')}],`).join('\n');
  const file = path.join(import.meta.dirname, '..', 'src', 'block-model.weights.ts');
  fs.writeFileSync(
    file,
    `// Generated by scripts/train-block-model.ts (fit --write): do not edit.
import type { BlockModel } from './block-model.js';

const FEATURES = ${JSON.stringify(model.features)};

const TREES: number[][] = [
${trees}
];

export const BLOCK_MODEL: BlockModel | null = {
  features: FEATURES,
  bias: ${round(model.bias)},
  trees: TREES,
  threshold: ${model.threshold},
  maxDrop: ${model.maxDrop},
};
`,
  );
  console.log(`weights → ${file}`);
}

/** The headroom: every block whose leaving out alone raises the page's F1 left out. */
function oracle(): void {
  const pages = load();
  const rows = pages.map((p) => {
    const gains = marginalGains(p);
    return { base: pageScore(p, () => false), after: pageScore(p, (r) => gains[r]! > 0) };
  });
  console.log('oracle: every block with a positive gain left out');
  report(pages, rows);
  const greedy = pages.map((p) => {
    const { y } = greedyLabels(p);
    return { base: pageScore(p, () => false), after: pageScore(p, (r) => y[r] === 1) };
  });
  console.log('oracle: blocks left out one by one, largest gain first');
  report(pages, greedy);
}

const command = process.argv[2];
if (command === 'oracle') oracle();
else if (command === 'collect') await collect();
else if (command === 'cv') crossValidate();
else if (command === 'fit') fit();
else throw new Error('usage: train-block-model.ts collect | cv [--models FILE] | fit [--write]');
