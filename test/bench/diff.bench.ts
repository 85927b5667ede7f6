// The diff service's comparison core on generated sites, against baselines measured in the same
// process on the same data:
//   1. the change record of a 10,000-page run against its baseline (compareRuns) against the
//      naive comparison: markdown strings compared for equality, added and removed by set
//      difference (what the record costs over bare equality, and what bare equality gets wrong);
//   2. the word diff of one ~100 KB page with scattered edits (diffWords) against tokenizing both
//      versions (its lower bound: diffWords tokenizes both, then diffs).
// Called by test/bench/run.ts; `node --import tsx test/bench/diff.bench.ts` runs it alone.
import path from 'node:path';
import {
  compareRuns,
  contentHash,
  diffWords,
  tokenizeMarkdown,
  type ChangeCounts,
  type ChangeRecord,
  type PageBodies,
  type PageSummary,
  type RunSummary,
  type WordDiff,
} from '@tidemark/diff';

const PAGES = Number(process.env.BENCH_DIFF_PAGES ?? 10_000);
const RECORD_ROUNDS = Number(process.env.BENCH_DIFF_RECORD_ROUNDS ?? 3);
const WORD_ROUNDS = Number(process.env.BENCH_DIFF_WORD_ROUNDS ?? 20);
const PAGE_BYTES = 100 * 1024;
const SITE = 'https://outfitters.example';

// --- Text -------------------------------------------------------------------------------------

/** mulberry32: a seeded generator, so every run of the bench compares the same sites. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from or ' +
  'had by not but what some we can out other were all there when up use your how said an each she which ' +
  'do their time if will way about many then them would so these her long make thing see him two has look ' +
  'more day could go come did most people over know water than call first who may down side been now find'
).split(' ');
// Site words are made of these syllables; edit words (section 2) of others, so they match nothing.
const SYLLABLES = 'ba ce di fo gu ka le mi no pu ra se ti vo we ly ton mar ber sil den cor fel han gri pel'.split(' ');
const EDIT_SYLLABLES = 'qua zho xy jeu qir zav jox quo'.split(' ');

class Writer {
  readonly random: () => number;
  private readonly vocabulary: string[];

  constructor(seed: number, size = 6000) {
    this.random = seeded(seed);
    const seen = new Set<string>();
    while (seen.size < size) seen.add(this.coin(SYLLABLES, 2 + this.int(3)));
    this.vocabulary = [...seen];
  }

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  coin(syllables: readonly string[], count: number): string {
    let word = '';
    for (let i = 0; i < count; i++) word += this.pick(syllables);
    return word;
  }

  /** A site word: a common word (45%), one of the page's topic words (10%), else a Zipf-ish draw. */
  word(topic: readonly string[]): string {
    const r = this.random();
    if (r < 0.45) return this.pick(COMMON);
    if (r < 0.55) return this.pick(topic);
    return this.vocabulary[Math.floor(this.random() ** 2.5 * this.vocabulary.length)]!;
  }

  topic(): string[] {
    return Array.from({ length: 8 }, () => this.vocabulary[this.int(this.vocabulary.length)]!);
  }

  sentence(topic: readonly string[]): string {
    const n = 8 + this.int(13);
    const words: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.random();
      let w =
        r < 0.03
          ? `$${10 + this.int(190)}.${10 + this.int(90)}`
          : r < 0.06
            ? String(2 + this.int(500))
            : this.word(topic);
      if (i < n - 1 && this.random() < 0.07) w += ',';
      words.push(w);
    }
    words[0] = words[0]![0]!.toUpperCase() + words[0]!.slice(1);
    return `${words.join(' ')}.`;
  }

  /** A sentence of words no site page uses. */
  editSentence(): string {
    const n = 6 + this.int(8);
    const words = Array.from({ length: n }, () => this.coin(EDIT_SYLLABLES, 2 + this.int(2)));
    return `${words.join(' ')}.`;
  }

  title(topic: readonly string[], words: number): string {
    return Array.from({ length: words }, () => {
      const w = this.word(topic);
      return w[0]!.toUpperCase() + w.slice(1);
    }).join(' ');
  }
}

// --- Pages ------------------------------------------------------------------------------------

type Block = { heading: string } | { sentences: string[] } | { items: string[] };

interface Page {
  url: string;
  title: string;
  blocks: Block[];
}

const HEADER = [
  `[Outfitters](${SITE}/) · [Shop](${SITE}/shop) · [Guides](${SITE}/guides) · [Forum](${SITE}/forum) · [Help](${SITE}/help)`,
  '',
  'Free shipping on orders over $50. Returns accepted within 30 days of delivery.',
].join('\n');
const FOOTER = [
  '---',
  '',
  `© 2025 Outfitters Ltd. All rights reserved. [Privacy](${SITE}/privacy) · [Terms](${SITE}/terms)`,
  '',
  'Sign up for our newsletter and hear about new gear, repairs and events near you first.',
].join('\n');

/** The line that changes on every render: an update stamp and a view counter. */
const volatileLine = (index: number, run: number): string => {
  const minute = (index * 7 + run * 13) % 60;
  const second = (index * 11 + run * 29) % 60;
  const hh = String(8 + ((index + run) % 12)).padStart(2, '0');
  const stamp = `2025-03-${String(2 + run * 7).padStart(2, '0')} ${hh}:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')} UTC`;
  return `Last updated: ${stamp} · ${(1000 + index * 37 + run * 4211).toLocaleString('en-US')} views`;
};

function render(page: Page, index: number, run: number): string {
  const out = [HEADER, '', `# ${page.title}`, '', volatileLine(index, run), ''];
  for (const block of page.blocks) {
    if ('heading' in block) out.push(`## ${block.heading}`);
    else if ('sentences' in block) out.push(block.sentences.join(' '));
    else out.push(block.items.map((item) => `- ${item}`).join('\n'));
    out.push('');
  }
  out.push(FOOTER);
  return out.join('\n');
}

function writePage(w: Writer, url: string, targetWords: number): Page {
  const topic = w.topic();
  const blocks: Block[] = [];
  let words = 0;
  const count = (text: string) => text.split(' ').length;
  blocks.push({ sentences: Array.from({ length: 2 + w.int(2) }, () => w.sentence(topic)) });
  while (words < targetWords) {
    blocks.push({ heading: w.title(topic, 2 + w.int(3)) });
    for (let p = 1 + w.int(3); p > 0; p--) {
      const sentences = Array.from({ length: 2 + w.int(5) }, () => w.sentence(topic));
      blocks.push({ sentences });
      words += sentences.reduce((n, s) => n + count(s), 0);
    }
    if (w.random() < 0.3) {
      const items = Array.from({ length: 3 + w.int(3) }, () => w.sentence(topic));
      blocks.push({ items });
      words += items.reduce((n, s) => n + count(s), 0);
    }
  }
  return { url, title: w.title(topic, 3 + w.int(4)), blocks };
}

const paragraphs = (page: Page): Array<{ sentences: string[] }> =>
  page.blocks.filter((b): b is { sentences: string[] } => 'sentences' in b);

/** A few sentences rewritten: the edit a site makes to a page between two crawls. */
function editPage(w: Writer, page: Page): Page {
  const blocks = page.blocks.map((b) => ('sentences' in b ? { sentences: [...b.sentences] } : b));
  const copy = { ...page, blocks };
  const paras = paragraphs(copy);
  const topic = w.topic();
  for (let e = 1 + w.int(3); e > 0; e--) {
    const para = w.pick(paras);
    para.sentences[w.int(para.sentences.length)] = w.sentence(topic);
  }
  return copy;
}

const wordCount = (markdown: string): number => markdown.split(/\s+/).filter((t) => /[\p{L}\p{N}]/u.test(t)).length;

// --- 1. The change record of a run --------------------------------------------------------------

interface Stored {
  summary: PageSummary;
  markdown: string | null;
}

interface Site {
  baseline: RunSummary;
  current: RunSummary;
  bodies: { baseline: Map<string, string>; current: Map<string, string> };
  /** What was done between the runs, by URL. */
  edited: Set<string>;
  removed: Set<string>;
  added: Set<string>;
  blocked: Set<string>;
  /** Removed URL → the added URL its page now lives at. */
  moved: Map<string, string>;
  /** Time spent fingerprinting markdown (crawl time: contentHash is stored on the page row). */
  hashMs: number;
  hashed: number;
  bytes: number;
}

const SECTIONS = ['shop', 'guides', 'journal', 'forum', 'help'];

function buildSite(pages: number): Site {
  const w = new Writer(20250302);
  let hashMs = 0;
  let hashed = 0;
  let bytes = 0;
  const read = (url: string, markdown: string): Stored => {
    const t0 = performance.now();
    const hash = contentHash(markdown);
    hashMs += performance.now() - t0;
    hashed++;
    bytes += markdown.length;
    return {
      summary: {
        url,
        status: 'done',
        verdict: 'ok',
        errorCode: 'OK',
        httpStatus: 200,
        contentHash: hash,
        words: wordCount(markdown),
      },
      markdown,
    };
  };
  const unread = (url: string, verdict: 'blocked', errorCode: 'BLOCKED' | 'NOT_FOUND', httpStatus: number): Stored => ({
    summary: { url, status: 'done', verdict, errorCode, httpStatus, contentHash: null, words: 0 },
    markdown: null,
  });

  const perSection = Math.ceil(pages / SECTIONS.length);
  const site: Page[] = Array.from({ length: pages }, (_, i) =>
    writePage(w, `${SITE}/${SECTIONS[Math.floor(i / perSection)]}/p${i}`, 250 + w.int(1000)),
  );

  // A blocked section: a run of forum pages answers 403 in the current run.
  const blockedCount = Math.round(pages * 0.03);
  const forum = SECTIONS.indexOf('forum') * perSection;
  const blockedIdx = new Set(Array.from({ length: blockedCount }, (_, k) => forum + k));
  // Edited and removed pages, drawn from the rest.
  const rest = site.map((_, i) => i).filter((i) => !blockedIdx.has(i));
  for (let i = rest.length - 1; i > 0; i--) {
    const j = w.int(i + 1);
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  const editedIdx = new Set(rest.slice(0, Math.round(pages * 0.02)));
  const removedIdx = rest.slice(editedIdx.size, editedIdx.size + Math.round(pages * 0.01));
  const movedCount = Math.round(removedIdx.length / 10);

  const baseline: Stored[] = site.map((page, i) => read(page.url, render(page, i, 0)));
  const current: Stored[] = [];
  const removedSet = new Set(removedIdx);
  removedIdx.forEach((i, k) => {
    // Half the removed pages answer 404; the others are no longer linked and are not crawled.
    if (k % 2 === 0) current.push(unread(site[i]!.url, 'blocked', 'NOT_FOUND', 404));
  });
  const edited = new Set<string>();
  site.forEach((page, i) => {
    if (removedSet.has(i)) return;
    if (blockedIdx.has(i)) return void current.push(unread(page.url, 'blocked', 'BLOCKED', 403));
    if (!editedIdx.has(i)) return void current.push(read(page.url, render(page, i, 1)));
    edited.add(page.url);
    current.push(read(page.url, render(editPage(w, page), i, 1)));
  });
  // Added pages: a few are removed pages that moved to a new URL, the others are new.
  const added = new Set<string>();
  const moved = new Map<string, string>();
  for (let k = 0; k < removedIdx.length; k++) {
    const i = pages + k;
    const url = `${SITE}/${SECTIONS[k % SECTIONS.length]}/new-${k}`;
    const page = k < movedCount ? { ...site[removedIdx[k]!]!, url } : writePage(w, url, 250 + w.int(1000));
    if (k < movedCount) moved.set(site[removedIdx[k]!]!.url, url);
    added.add(url);
    current.push(read(url, render(page, i, 1)));
  }

  const bodies = (stored: Stored[]) =>
    new Map(stored.flatMap((s) => (s.markdown === null ? [] : [[s.summary.url, s.markdown] as const])));
  return {
    baseline: { runId: 'run_base', status: 'done', stop: 'exhausted', pages: baseline.map((s) => s.summary) },
    current: { runId: 'run_now', status: 'done', stop: 'exhausted', pages: current.map((s) => s.summary) },
    bodies: { baseline: bodies(baseline), current: bodies(current) },
    edited,
    removed: new Set(removedIdx.map((i) => site[i]!.url)),
    added,
    blocked: new Set([...blockedIdx].map((i) => site[i]!.url)),
    moved,
    hashMs,
    hashed,
    bytes,
  };
}

/** The simplest correct-looking comparison: equal markdown or not, and set differences of URLs. */
function naiveCompare(baseline: Map<string, string>, current: Map<string, string>) {
  const counts = { added: 0, removed: 0, modified: 0, same: 0 };
  for (const [url, markdown] of current) {
    const old = baseline.get(url);
    if (old === undefined) counts.added++;
    else if (old === markdown) counts.same++;
    else counts.modified++;
  }
  for (const url of baseline.keys()) if (!current.has(url)) counts.removed++;
  return counts;
}

const urlsOf = (record: ChangeRecord, kind: string) =>
  new Set(record.entries.filter((e) => e.kind === kind).map((e) => e.url));

const sameSet = (p: ReadonlySet<string>, q: ReadonlySet<string>) => p.size === q.size && [...p].every((u) => q.has(u));

/** Throws unless the record says exactly what was done to the site. */
function checkRecord(record: ChangeRecord, site: Site): void {
  const expected: ChangeCounts = {
    added: site.added.size,
    removed: site.removed.size,
    modified: site.edited.size,
    same: PAGES - site.removed.size - site.edited.size - site.blocked.size,
    withheld: 0,
    unverified: site.blocked.size,
    skipped: 0,
    fields: 0,
    selectorBreaks: 0,
    // Each edited page is compared, and its changed update line is set aside as noise.
    volatileBlocks: site.edited.size,
  };
  const wrong = (Object.keys(expected) as Array<keyof ChangeCounts>).filter((k) => record.counts[k] !== expected[k]);
  if (wrong.length)
    throw new Error(
      `change record counts ${wrong.map((k) => `${k} ${record.counts[k]} (expected ${expected[k]})`).join(', ')}; the figure would lie`,
    );
  const sets: Array<[string, Set<string>]> = [
    ['modified', site.edited],
    ['removed', site.removed],
    ['added', site.added],
    ['unverified', site.blocked],
  ];
  for (const [kind, urls] of sets)
    if (!sameSet(urlsOf(record, kind), urls))
      throw new Error(`${kind} pages are not the ones made so; the figure would lie`);
  const moves = new Map(record.entries.flatMap((e) => (e.movedTo ? [[e.url, e.movedTo] as const] : [])));
  if (moves.size !== site.moved.size || [...site.moved].some(([from, to]) => moves.get(from) !== to))
    throw new Error(`${moves.size} moves paired, ${site.moved.size} made; the figure would lie`);
  if (!record.coverage.verdict)
    throw new Error(`coverage says no verdict (${record.coverage.reason}); the figure would lie`);
  const empty = record.entries.find((e) => e.kind === 'modified' && e.wordsAdded + e.wordsRemoved === 0);
  if (empty) throw new Error(`${empty.url} is modified with no changed words; the figure would lie`);
}

async function benchRecord(): Promise<string[]> {
  const t0 = performance.now();
  const site = buildSite(PAGES);
  const buildS = (performance.now() - t0) / 1000;
  const { baseline, current, bodies } = site;
  const loadPage = async (url: string, side: 'baseline' | 'current'): Promise<PageBodies | null> => {
    const markdown = bodies[side].get(url);
    return markdown === undefined ? null : { markdown };
  };

  // Naive: both runs' markdown by URL, as stored; the maps are built inside the timing, as
  // compareRuns builds its own from the summaries.
  const stored = {
    baseline: [...bodies.baseline].map(([url, markdown]) => ({ url, markdown })),
    current: [...bodies.current].map(([url, markdown]) => ({ url, markdown })),
  };
  let naive = naiveCompare(new Map(), new Map());
  let naiveS = Infinity;
  for (let r = 0; r < 10; r++) {
    const t = performance.now();
    naive = naiveCompare(
      new Map(stored.baseline.map((p) => [p.url, p.markdown])),
      new Map(stored.current.map((p) => [p.url, p.markdown])),
    );
    naiveS = Math.min(naiveS, (performance.now() - t) / 1000);
  }
  const read = bodies.current.size - site.added.size;
  if (naive.added !== site.added.size || naive.modified + naive.same !== read)
    throw new Error(`naive comparison saw ${JSON.stringify(naive)}; the baseline would lie`);

  let oursS = Infinity;
  let record: ChangeRecord | null = null;
  for (let r = 0; r < RECORD_ROUNDS; r++) {
    const t = performance.now();
    const result = await compareRuns({ baseline, current, loadPage });
    oursS = Math.min(oursS, (performance.now() - t) / 1000);
    checkRecord(result.record, site);
    record = result.record;
  }
  const c = record!.counts;
  const rate = (s: number) => Math.round(PAGES / s).toLocaleString('en-US');
  const kb = site.bytes / site.hashed / 1024;
  const words = baseline.pages.map((p) => p.words ?? 0);
  const wordRange = `${Math.min(...words)}–${Math.max(...words)} words`;
  return [
    `Change record, ${PAGES.toLocaleString('en-US')}-page run against its baseline (generated in ${buildS.toFixed(1)} s: ${wordRange}, mean ${kb.toFixed(1)} KB a page,`,
    `  shared header/footer, an update stamp and view counter on every page; ${site.edited.size} pages edited, ${site.removed.size} removed,`,
    `  ${site.added.size} added (${site.moved.size} of them moved from removed URLs), ${site.blocked.size} of the forum blocked), best of ${RECORD_ROUNDS} rounds`,
    `  baseline: markdown equality by URL + set difference   ${(naiveS * 1000).toFixed(1).padStart(8)} ms  ${rate(naiveS).padStart(11)} pages/s`,
    `    (says ${naive.modified} modified, ${naive.same} same, ${naive.removed} removed, ${naive.added} added: the stamp differs on every page, blocked pages look removed)`,
    `  compareRuns → change record                          ${(oursS * 1000).toFixed(1).padStart(8)} ms  ${rate(oursS).padStart(11)} pages/s`,
    `    (${c.modified} modified, ${c.same} same, ${c.removed} removed, ${c.added} added, ${c.unverified} unverified, ${site.moved.size} moves paired, ${c.volatileBlocks} volatile blocks set aside: as made)`,
    `  ratio compareRuns / naive: ${(oursS / naiveS).toFixed(1)}×`,
    `  not in either figure: contentHash at crawl time, ${((site.hashMs / site.hashed) * 1000).toFixed(0)} µs a page (stored on the page row)`,
  ];
}

// --- 2. The word diff of a large page -----------------------------------------------------------

interface Edit {
  removed: number;
  added: number;
  /** The added text as a hunk shows it (null: nothing added). */
  text: string | null;
}

function editedPair(): { before: string; after: string; edits: Edit[] } {
  const w = new Writer(100_000);
  let page = writePage(w, `${SITE}/guides/complete-handbook`, 500);
  // Grow the page until its markdown reaches the size.
  while (render(page, 1, 0).length < PAGE_BYTES) {
    const more = writePage(w, page.url, 500);
    page = { ...page, blocks: [...page.blocks, ...more.blocks] };
  }
  const before = render(page, 1, 0);
  const blocks = page.blocks.map((b) => ('sentences' in b ? { sentences: [...b.sentences] } : b));
  const paras = paragraphs({ ...page, blocks }).filter((p) => p.sentences.length >= 2);
  const kinds = ['replace', 'insert', 'delete'] as const;
  const edits: Edit[] = [];
  const EDITS = 12;
  for (let e = 0; e < EDITS; e++) {
    // Scattered: one paragraph in each twelfth of the page, a sentence in its middle.
    const para = paras[Math.floor(((e + 0.5) * paras.length) / EDITS)]!;
    const at = 1 + w.int(para.sentences.length - 1);
    const old = para.sentences[at - 1]!;
    const kind = kinds[e % kinds.length]!;
    const fresh = w.editSentence();
    if (kind === 'replace') para.sentences[at - 1] = fresh;
    else if (kind === 'insert') para.sentences.splice(at, 0, fresh);
    else para.sentences.splice(at - 1, 1);
    edits.push({
      removed: kind === 'insert' ? 0 : wordCount(old),
      added: kind === 'delete' ? 0 : wordCount(fresh),
      text: kind === 'delete' ? null : fresh,
    });
  }
  // The re-crawl renders a new update stamp and view count too: noise, not a hunk.
  return { before, after: render({ ...page, blocks }, 1, 1), edits };
}

/** Throws unless the diff found each edit as one hunk, in order, word for word. */
function checkHunks(diff: WordDiff, edits: Edit[]): void {
  const found = diff.hunks.map((h) => `-${h.wordsRemoved}+${h.wordsAdded}`).join(' ');
  const made = edits.map((e) => `-${e.removed}+${e.added}`).join(' ');
  if (found !== made) throw new Error(`hunks found ${found}; edits made ${made}; the figure would lie`);
  const text = diff.hunks.findIndex((h, i) => edits[i]!.text !== null && h.added !== edits[i]!.text);
  if (text >= 0) throw new Error(`hunk ${text} added "${diff.hunks[text]!.added}"; the figure would lie`);
}

/** Best of several rounds, in ms: the least disturbed by GC and other processes. */
function bestMs(rounds: number, work: () => unknown): number {
  for (let r = 0; r < 3; r++) work(); // warm the JIT
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    work();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

function benchWordDiff(): string[] {
  const { before, after, edits } = editedPair();
  let diff: WordDiff | null = null;
  const ours = bestMs(WORD_ROUNDS, () => (diff = diffWords(before, after)));
  checkHunks(diff!, edits);
  const tokenize = bestMs(WORD_ROUNDS, () => [tokenizeMarkdown(before), tokenizeMarkdown(after)]);
  const split = bestMs(WORD_ROUNDS, () => [before.split(/\s+/), after.split(/\s+/)]);
  const tokens = tokenizeMarkdown(before).tokens.length;
  const row = (name: string, ms: number) => `  ${name.padEnd(52)} ${ms.toFixed(2).padStart(8)} ms`;
  return [
    `Word diff of one ${(before.length / 1024).toFixed(0)} KB page (${tokens.toLocaleString('en-US')} tokens), ${edits.length} scattered edits (sentences replaced, inserted, deleted)`,
    `  and a new update stamp, best of ${WORD_ROUNDS} rounds`,
    row('whitespace split of both (reference)', split),
    row('baseline: tokenizeMarkdown of both (the lower bound)', tokenize),
    row('diffWords(before, after)', ours),
    `    (${diff!.hunks.length} hunks, +${diff!.wordsAdded} −${diff!.wordsRemoved} words: each edit, word for word; the stamp is no hunk)`,
    `  ratio diffWords / tokenize: ${(ours / tokenize).toFixed(2)}×`,
  ];
}

export async function benchDiff(): Promise<string> {
  const record = await benchRecord();
  const words = benchWordDiff();
  return ['', ...record, '', ...words, ''].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  process.stdout.write(await benchDiff());
}
