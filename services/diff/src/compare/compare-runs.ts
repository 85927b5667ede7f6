// The change record of one run against its baseline: what the wiring calls after a run ends.
// Pages are classified from their summaries; only pages whose content fingerprint changed (or
// is unknown) have their bodies loaded and compared through the noise filter and the word
// diff; broken field selectors are repointed; removed and added pages carrying the same text
// are paired as moves. The noise state goes in and comes out as plain JSON for the caller to keep.

import { fingerprint } from './hash.js';
import { tokenizeMarkdown, type TokenizedMarkdown } from './markdown-tokens.js';
import { DEFAULT_NOISE_OPTIONS, type IgnoredBlockChange, type NoiseOptions } from './noise-filter.js';
import { parseNoiseState, type NoiseState } from './noise-state.js';
import { classifyPages, countEntries, DEFAULT_COVERAGE_THRESHOLD, urlKey } from './page-classify.js';
import { comparePageContent } from './page-compare.js';
import { inlineSelectors, type SelectorRunner } from '../bounded/tasks.js';
import { REPOINT_THRESHOLD } from './selector-repoint.js';
import { NEAR_DUPLICATE_BITS, simhash, SimhashIndex } from './simhash.js';
import { DEFAULT_TEMPLATE_THRESHOLDS, TemplateIndex, type TemplateThresholds } from './template-blocks.js';
import type { ChangeCounts, ChangeEntry, Coverage, FieldConfig, PageSummary, RunSummary } from './types.js';
import { maskVolatileElements } from './volatile-elements.js';

export interface PageBodies {
  markdown?: string | null;
  /** Clean (or raw) HTML: needed to repoint a broken field selector. */
  html?: string | null;
}

/** Loads one page's stored bodies from the baseline or the current run (null: no row or no bodies). */
export type PageLoader = (url: string, side: 'baseline' | 'current') => Promise<PageBodies | null>;

export interface CompareRunsOptions {
  /** See DEFAULT_COVERAGE_THRESHOLD. */
  coverageThreshold: number;
  /** Config `notify_min_words`: a modified page is notified once its edit reaches this many words. */
  notifyMinWords: number;
  /** Config `fields`: the selectors to repoint when one breaks. */
  fields: Record<string, FieldConfig>;
  noise: NoiseOptions;
  templates: TemplateThresholds;
  repointThreshold: number;
  /** Pages whose bodies are loaded at once. */
  concurrency: number;
  /**
   * Config `volatile_selectors`: changes inside the elements they match are noise. They run over
   * the page's stored html (both runs); a page without it is compared without them, with a reason.
   */
  volatileSelectors: readonly string[];
}

export interface CompareRunsInput {
  baseline: RunSummary | null;
  current: RunSummary;
  loadPage: PageLoader;
  /** The noise state stored after the previous comparison (anything unreadable starts over). */
  noise?: unknown;
  options?: Partial<CompareRunsOptions>;
  /** Where the project's selectors run (volatile_selectors, repointing): a bounded pool in the service. */
  selectors?: SelectorRunner;
}

/** One change to a template pagelet, reported once for all the pages that carry it. */
export interface TemplateChange {
  section: string | null;
  before: string | null;
  after: string | null;
  pages: number;
  /** The first few pages it was seen on. */
  urls: string[];
}

export interface ChangeRecord {
  /** The run compared against (null: the first run). */
  baseline: string | null;
  counts: ChangeCounts;
  coverage: Coverage;
  /** Every page but those unchanged without noise and the skipped ones (counted, not listed). */
  entries: ChangeEntry[];
  templateChanges: TemplateChange[];
}

export interface CompareRunsResult {
  record: ChangeRecord;
  /** The state to store for the next comparison. */
  noise: NoiseState;
}

/** Pages under this many words are not paired as moves: too little text to tell them apart. */
const MIN_WORDS_FOR_MOVE = 50;
/** Past this many removed plus added pages, moves are not looked for (each needs its bodies loaded). */
const MAX_PAGES_FOR_MOVES = 2000;
/** Bodies of compared pages kept between the template pass and the comparison pass (characters). */
const BODY_CACHE_CHARS = 32 * 1024 * 1024;
/** Tokenized pages kept from the template pass for the comparison pass (tokens). */
const PARSED_CACHE_TOKENS = 4_000_000;
const TEMPLATE_EXAMPLE_URLS = 5;

/**
 * A page's content fingerprint for PageSummary.contentHash: its words with volatile spans
 * masked, formatting aside. A page whose only change is a timestamp or a counter keeps its
 * fingerprint, so it is `same` without its bodies being loaded (and its span is not counted
 * in volatileBlocks, which counts blocks set aside on pages that were compared).
 */
export function contentHash(markdown: string): string {
  return fingerprint(
    tokenizeMarkdown(markdown)
      .tokens.map((t) => t.key)
      .join(' '),
  );
}

/** The change record of `current` against `baseline`. */
export async function compareRuns(input: CompareRunsInput): Promise<CompareRunsResult> {
  const options: CompareRunsOptions = {
    coverageThreshold: DEFAULT_COVERAGE_THRESHOLD,
    notifyMinWords: 1,
    fields: {},
    noise: DEFAULT_NOISE_OPTIONS,
    templates: DEFAULT_TEMPLATE_THRESHOLDS,
    repointThreshold: REPOINT_THRESHOLD,
    concurrency: 8,
    volatileSelectors: [],
    ...input.options,
  };
  const selectors = input.selectors ?? inlineSelectors;
  const { baseline, current } = input;
  const { entries, coverage } = classifyPages(baseline, current, options);
  const noise = parseNoiseState(input.noise);
  const run = noise.run + 1;
  const before = byKey(baseline?.pages ?? []);
  const now = byKey(current.pages);
  const bodies = new BodyCache(input.loadPage, BODY_CACHE_CHARS);
  const parsed = new ParsedCache(PARSED_CACHE_TOKENS);

  // Pages whose fingerprint changed or is unknown: their text decides modified or same.
  const compared = entries.filter((e) => {
    if (e.kind !== 'modified') return false;
    const old = before.get(urlKey(e.url))?.contentHash ?? null;
    const cur = now.get(urlKey(e.url))?.contentHash ?? null;
    return old === null || cur === null || old !== cur;
  });
  const readablePages = current.pages.filter(
    (p) => p.verdict === 'ok' || p.verdict === 'thin' || p.verdict === 'cached',
  ).length;
  const templates = await templateIndexes(compared, bodies, parsed, readablePages, options);

  const templateChanges = new Map<string, TemplateChange>();
  // Pages whose text changed beyond noise (their fields aside).
  const textChanged = new Set<ChangeEntry>();
  await forEachLimited(compared, options.concurrency, async (entry) => {
    const key = urlKey(entry.url);
    const [old, cur] = await Promise.all([bodies.get(entry.url, 'baseline'), bodies.get(entry.url, 'current')]);
    if (typeof old?.markdown !== 'string' || typeof cur?.markdown !== 'string') {
      // Without bodies, differing fingerprints still say the page changed, if not by how much.
      if (before.get(key)?.contentHash && now.get(key)?.contentHash) textChanged.add(entry);
      else Object.assign(entry, { kind: 'unverified', reason: 'no stored markdown to compare' });
      return;
    }
    let oldDoc = parsed.take(entry.url, 'baseline', old.markdown);
    let curDoc = parsed.take(entry.url, 'current', cur.markdown);
    if (options.volatileSelectors.length) {
      const masked = await maskBySelectors(oldDoc, curDoc, old.html, cur.html, options.volatileSelectors, selectors);
      if ('reason' in masked) addReason(entry, masked.reason);
      else [oldDoc, curDoc] = [masked.before, masked.after];
    }
    const result = comparePageContent(oldDoc, curDoc, {
      noise: noise.pages[key],
      run,
      noiseOptions: options.noise,
      ...(templates
        ? {
            templateBefore: (sketch: string) => templates.before.isTemplate(sketch),
            templateAfter: (sketch: string) => templates.after.isTemplate(sketch),
          }
        : {}),
    });
    noise.pages[key] = result.noise;
    if (result.changed) textChanged.add(entry);
    entry.kind = result.changed || entry.fields.length ? 'modified' : 'same';
    entry.wordsAdded = result.wordsAdded;
    entry.wordsRemoved = result.wordsRemoved;
    entry.section = result.section;
    entry.volatile = entry.kind === 'same' && result.volatile;
    entry.volatileBlocks = result.volatileBlocks;
    for (const ignored of result.ignored) noteTemplateChange(templateChanges, ignored, entry.url);
  });

  await repointBrokenFields(entries, before, bodies, options, selectors);
  for (const entry of entries) {
    // A field that only moved (repointed to its old value) changes nothing.
    if (entry.kind === 'modified' && !entry.fields.length && !textChanged.has(entry)) entry.kind = 'same';
  }
  if (coverage.verdict) await pairMoves(entries, bodies);

  for (const entry of entries) {
    entry.notify =
      entry.kind === 'added' ||
      entry.kind === 'removed' ||
      (entry.kind === 'modified' &&
        (entry.wordsAdded + entry.wordsRemoved >= options.notifyMinWords || entry.fields.length > 0));
    if (entry.kind === 'removed') delete noise.pages[urlKey(entry.url)];
  }
  noise.run = run;
  return {
    record: {
      baseline: baseline?.runId ?? null,
      counts: countEntries(entries),
      coverage,
      entries: entries.filter(
        (e) => e.kind !== 'skipped' && (e.kind !== 'same' || e.volatile || e.selectorBreaks.length > 0),
      ),
      templateChanges: [...templateChanges.values()].sort((p, q) => q.pages - p.pages),
    },
    noise,
  };
}

/**
 * Template pagelets of the baseline and the current run, from the compared pages. Skipped when
 * too few pages changed for any block to reach the template thresholds: the usual run.
 */
async function templateIndexes(
  compared: ChangeEntry[],
  bodies: BodyCache,
  parsed: ParsedCache,
  readablePages: number,
  options: CompareRunsOptions,
): Promise<{ before: TemplateIndex; after: TemplateIndex } | null> {
  const needed = Math.max(options.templates.minPages, options.templates.minShare * readablePages);
  if (compared.length < needed) return null;
  const indexes = {
    before: new TemplateIndex(readablePages, options.templates),
    after: new TemplateIndex(readablePages, options.templates),
  };
  await forEachLimited(compared, options.concurrency, async (entry) => {
    const [old, cur] = await Promise.all([bodies.get(entry.url, 'baseline'), bodies.get(entry.url, 'current')]);
    if (typeof old?.markdown === 'string') indexes.before.addPage(parsed.keep(entry.url, 'baseline', old.markdown));
    if (typeof cur?.markdown === 'string') indexes.after.addPage(parsed.keep(entry.url, 'current', cur.markdown));
  });
  return indexes;
}

function noteTemplateChange(changes: Map<string, TemplateChange>, ignored: IgnoredBlockChange, url: string): void {
  if (ignored.reason !== 'template' || ignored.template === undefined) return;
  const known = changes.get(ignored.template);
  if (known) {
    known.pages++;
    if (known.urls.length < TEMPLATE_EXAMPLE_URLS) known.urls.push(url);
    return;
  }
  changes.set(ignored.template, {
    section: ignored.section,
    before: ignored.before,
    after: ignored.after,
    pages: 1,
    urls: [url],
  });
}

/**
 * Proposes a selector for each broken field (CSS, single-valued). When the proposal reads the
 * old value the field did not change, it only moved; the break is still reported.
 */
async function repointBrokenFields(
  entries: ChangeEntry[],
  before: Map<string, PageSummary>,
  bodies: BodyCache,
  options: CompareRunsOptions,
  selectors: SelectorRunner,
): Promise<void> {
  for (const entry of entries) {
    if (!entry.selectorBreaks.length) continue;
    const [old, cur] = await Promise.all([bodies.get(entry.url, 'baseline'), bodies.get(entry.url, 'current')]);
    if (typeof cur?.html !== 'string') continue;
    const oldFields = before.get(urlKey(entry.url))?.fields ?? {};
    for (const broken of entry.selectorBreaks) {
      const config = options.fields[broken.field];
      const oldValue = oldFields[broken.field];
      if (!config || typeof oldValue !== 'string' || (typeof config !== 'string' && config.all)) continue;
      let result;
      try {
        result = await selectors.run({
          kind: 'repoint',
          input: {
            selector: broken.selector,
            ...(typeof config !== 'string' && config.attr ? { attr: config.attr } : {}),
            oldValue,
            ...(typeof old?.html === 'string' ? { oldHtml: old.html } : {}),
            newHtml: cur.html,
            url: entry.url,
          },
          threshold: options.repointThreshold,
        });
      } catch (err) {
        // The project's selector outran its budget (or its thread died): the break stays unrepointed.
        addReason(entry, `field ${broken.field} not repointed: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      if (!result.repointed) continue;
      const { selector, confidence, value, sameValue } = result.repointed;
      broken.repointed = { selector, confidence, value };
      if (sameValue) entry.fields = entry.fields.filter((name) => name !== broken.field);
    }
  }
}

/** Adds a sentence to an entry's reason. */
function addReason(entry: ChangeEntry, reason: string): void {
  entry.reason = entry.reason ? `${entry.reason}; ${reason}` : reason;
}

/**
 * Both versions of a page with the words of their volatile_selectors elements masked
 * (volatile-elements.ts), or why the selectors could not be applied: no stored html on one side,
 * or the selectors outran their budget on a page.
 */
async function maskBySelectors(
  before: TokenizedMarkdown,
  after: TokenizedMarkdown,
  beforeHtml: string | null | undefined,
  afterHtml: string | null | undefined,
  volatileSelectors: readonly string[],
  selectors: SelectorRunner,
): Promise<{ before: TokenizedMarkdown; after: TokenizedMarkdown } | { reason: string }> {
  if (typeof beforeHtml !== 'string' || typeof afterHtml !== 'string')
    return {
      reason:
        'volatile_selectors not applied: the page’s html is not stored in both runs (formats cleanHtml or rawHtml, or store_html always)',
    };
  try {
    const [old, now] = await Promise.all(
      [beforeHtml, afterHtml].map((html) =>
        selectors.run({ kind: 'volatile', html, selectors: [...volatileSelectors] }),
      ),
    );
    return {
      before: maskVolatileElements(before, old!.texts).doc,
      after: maskVolatileElements(after, now!.texts).doc,
    };
  } catch (err) {
    return { reason: `volatile_selectors not applied: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Pairs a removed page with an added one whose text is a near-duplicate (simhash within 3 bits). */
async function pairMoves(entries: ChangeEntry[], bodies: BodyCache): Promise<void> {
  const removed = entries.filter((e) => e.kind === 'removed' && e.wordsRemoved >= MIN_WORDS_FOR_MOVE);
  const added = entries.filter((e) => e.kind === 'added' && e.wordsAdded >= MIN_WORDS_FOR_MOVE);
  if (!removed.length || !added.length || removed.length + added.length > MAX_PAGES_FOR_MOVES) return;
  const index = new SimhashIndex<ChangeEntry>();
  for (const entry of added) {
    const markdown = (await bodies.get(entry.url, 'current'))?.markdown;
    if (typeof markdown === 'string') index.add(simhash(markdown), entry);
  }
  for (const entry of removed) {
    const markdown = (await bodies.get(entry.url, 'baseline'))?.markdown;
    if (typeof markdown !== 'string') continue;
    const match = index.near(simhash(markdown), NEAR_DUPLICATE_BITS).find((m) => m.item.movedFrom === undefined);
    if (!match) continue;
    entry.movedTo = match.item.url;
    match.item.movedFrom = entry.url;
  }
}

/** Bodies loaded once and kept while they fit the budget; past it they are loaded again when asked. */
class BodyCache {
  private readonly kept = new Map<string, Promise<PageBodies | null>>();
  private chars = 0;

  constructor(
    private readonly load: PageLoader,
    private readonly budget: number,
  ) {}

  get(url: string, side: 'baseline' | 'current'): Promise<PageBodies | null> {
    const key = `${side} ${url}`;
    const known = this.kept.get(key);
    if (known) return known;
    const loading = this.load(url, side);
    if (this.chars < this.budget) {
      this.kept.set(key, loading);
      void loading.then(
        (b) => (this.chars += (b?.markdown?.length ?? 0) + (b?.html?.length ?? 0)),
        () => this.kept.delete(key),
      );
    }
    return loading;
  }
}

/** Pages tokenized by the template pass, handed once to the comparison while they fit the budget. */
class ParsedCache {
  private readonly kept = new Map<string, TokenizedMarkdown>();
  private tokens = 0;

  constructor(private readonly budget: number) {}

  keep(url: string, side: 'baseline' | 'current', markdown: string): TokenizedMarkdown {
    const doc = tokenizeMarkdown(markdown);
    if (this.tokens + doc.tokens.length <= this.budget) {
      this.kept.set(`${side} ${url}`, doc);
      this.tokens += doc.tokens.length;
    }
    return doc;
  }

  take(url: string, side: 'baseline' | 'current', markdown: string): TokenizedMarkdown {
    const key = `${side} ${url}`;
    const doc = this.kept.get(key);
    if (!doc) return tokenizeMarkdown(markdown);
    this.kept.delete(key);
    this.tokens -= doc.tokens.length;
    return doc;
  }
}

function byKey(pages: readonly PageSummary[]): Map<string, PageSummary> {
  const map = new Map<string, PageSummary>();
  for (const page of pages) map.set(urlKey(page.url), page);
  return map;
}

async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
