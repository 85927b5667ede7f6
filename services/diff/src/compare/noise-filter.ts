// Decides which changed blocks of a page are noise. Blocks of the two versions are aligned by
// fingerprint (Myers over block hashes); each stretch between aligned blocks pairs its removed
// and added blocks in order. A change is noise when
//   flapping  — the new block equals one of the page's last N versions (A → B → A),
//   pattern   — only volatile spans differ (timestamps, "5 minutes ago", view counters, ©year),
//   ad-slot   — the block is labelled as an ad,
//   rotating  — it sits under a rotating widget's heading ("Trending now", "Related posts"),
//   template  — it is a template pagelet shared by many pages of the run (reported per run),
//   history   — its position changed in each of the last `volatileAfter` comparisons while the
//               rest of the page held still (at most one of those comparisons changed anything else).

import type { MarkdownBlock, TokenizedMarkdown } from './markdown-tokens.js';
import { tokensText } from './markdown-tokens.js';
import type { PageNoise } from './noise-state.js';
import { gapsBetween, Interner, matchSequences } from './sequence-diff.js';
import { blockSketch } from './template-blocks.js';

export interface NoiseOptions {
  /** Versions of a page whose blocks count as seen (flapping). */
  historyVersions: number;
  /** Consecutive changed comparisons that make a block position volatile by history. */
  volatileAfter: number;
  /** Largest share of a page's blocks that history may call volatile (a page rewritten every run is not noise). */
  maxVolatileShare: number;
}

export const DEFAULT_NOISE_OPTIONS: NoiseOptions = { historyVersions: 5, volatileAfter: 3, maxVolatileShare: 0.3 };

export type NoiseReason = 'flapping' | 'pattern' | 'ad-slot' | 'rotating' | 'template' | 'history';

export interface IgnoredBlockChange {
  reason: NoiseReason;
  section: string | null;
  /** The block's text before and after (null: added or removed); at most 300 characters. */
  before: string | null;
  after: string | null;
  /** The template change as "before sketch>after sketch", grouping one change across pages. */
  template?: string;
}

export interface NoiseContext {
  /** Ordinal of this comparison (NoiseState.run + 1). */
  run: number;
  options: NoiseOptions;
  /** Whether a block sketch is a template pagelet of the baseline / current run. */
  templateBefore?: (sketch: string) => boolean;
  templateAfter?: (sketch: string) => boolean;
}

export interface NoiseVerdict {
  /** Blocks of each version left out of the word diff. */
  ignoreBefore: Set<number>;
  ignoreAfter: Set<number>;
  ignored: IgnoredBlockChange[];
  /** Keys (section#ordinal) of every changed block, noise or not: the page's next observation. */
  changedKeys: string[];
}

const SHOWN_CHARS = 300;

/** The key of a block's position: it survives its content changing. */
export const blockKey = (block: MarkdownBlock): string => `${block.section ?? ''}#${block.ordinal}`;

/** Splits a page's block changes into noise and real changes. */
export function filterNoise(
  before: TokenizedMarkdown,
  after: TokenizedMarkdown,
  page: PageNoise | undefined,
  ctx: NoiseContext,
): NoiseVerdict {
  const interner = new Interner<string>();
  const runs = matchSequences(
    interner.ids32(before.blocks.map((b) => b.hash)),
    interner.ids32(after.blocks.map((b) => b.hash)),
  );
  const changes: Array<{ removed?: number; added?: number }> = [];
  for (const gap of gapsBetween(runs, before.blocks.length, after.blocks.length)) {
    const pairs = Math.max(gap.aEnd - gap.aStart, gap.bEnd - gap.bStart);
    for (let i = 0; i < pairs; i++) {
      const removed = gap.aStart + i < gap.aEnd ? gap.aStart + i : undefined;
      const added = gap.bStart + i < gap.bEnd ? gap.bStart + i : undefined;
      changes.push({ removed, added });
    }
  }
  const keyOf = (c: { removed?: number; added?: number }) =>
    blockKey(c.added !== undefined ? after.blocks[c.added]! : before.blocks[c.removed!]!);
  const changedKeys = [...new Set(changes.map(keyOf))];
  const volatileKeys = volatileByHistory(page, changedKeys, ctx, after.blocks.length);

  const verdict: NoiseVerdict = { ignoreBefore: new Set(), ignoreAfter: new Set(), ignored: [], changedKeys };
  // A block of the baseline itself showing up elsewhere moved; that is not flapping back.
  const inBaseline = new Set(before.blocks.map((b) => b.hash));
  for (const change of changes) {
    const old = change.removed !== undefined ? before.blocks[change.removed]! : undefined;
    const now = change.added !== undefined ? after.blocks[change.added]! : undefined;
    let template: string | undefined;
    let reason: NoiseReason | null = null;
    if (now && page && page.seen[now.hash] !== undefined && !inBaseline.has(now.hash)) reason = 'flapping';
    else if (old && now && old.maskedHash === now.maskedHash) reason = 'pattern';
    else if (old?.adSlot || now?.adSlot) reason = 'ad-slot';
    else if (old?.rotating || now?.rotating) reason = 'rotating';
    else if ((template = templateOf(before, old, after, now, ctx)) !== undefined) reason = 'template';
    else if (volatileKeys.has(keyOf(change))) reason = 'history';
    if (!reason) continue;
    if (change.removed !== undefined) verdict.ignoreBefore.add(change.removed);
    if (change.added !== undefined) verdict.ignoreAfter.add(change.added);
    verdict.ignored.push({
      reason,
      section: (now ?? old)!.section,
      before: old ? shown(before, old) : null,
      after: now ? shown(after, now) : null,
      ...(template !== undefined ? { template } : {}),
    });
  }
  return verdict;
}

/** The page's state after this comparison: its new version's blocks seen, the observation kept. */
export function recordComparison(
  page: PageNoise | undefined,
  before: TokenizedMarkdown,
  after: TokenizedMarkdown,
  changedKeys: readonly string[],
  run: number,
  options: NoiseOptions,
): PageNoise {
  const v = (page?.v ?? 0) + 1;
  const oldest = v - options.historyVersions + 1;
  const seen: Record<string, number> = {};
  for (const [hash, version] of Object.entries(page?.seen ?? {})) if (version >= oldest) seen[hash] = version;
  if (v - 1 >= oldest) for (const block of before.blocks) seen[block.hash] = Math.max(seen[block.hash] ?? 0, v - 1);
  for (const block of after.blocks) seen[block.hash] = v;
  const obs = (page?.obs ?? []).filter((o) => o.run > run - options.historyVersions && o.run < run);
  if (changedKeys.length) obs.push({ run, keys: [...changedKeys] });
  return { v, seen, obs };
}

/**
 * Block positions that changed in this comparison and in each of the previous volatileAfter-1
 * runs, provided the rest of the page changed in at most one of those comparisons and such
 * positions are a small part of the page.
 */
function volatileByHistory(
  page: PageNoise | undefined,
  changedKeys: readonly string[],
  ctx: NoiseContext,
  blockCount: number,
): Set<string> {
  const none = new Set<string>();
  if (!page || !changedKeys.length) return none;
  const window: Array<Set<string>> = [new Set(changedKeys)];
  for (let back = 1; back < ctx.options.volatileAfter; back++) {
    const observation = page.obs.find((o) => o.run === ctx.run - back);
    if (!observation) return none;
    window.push(new Set(observation.keys));
  }
  const candidates = new Set(changedKeys.filter((key) => window.every((keys) => keys.has(key))));
  if (!candidates.size || candidates.size > Math.max(1, Math.floor(ctx.options.maxVolatileShare * blockCount))) {
    return none;
  }
  const busy = window.filter((keys) => [...keys].some((key) => !candidates.has(key))).length;
  return busy <= 1 ? candidates : none;
}

/**
 * The sketch naming a template change: an added block that is a template of the current run, a
 * removed one of the baseline, or a replacement where both sides are (a page-specific block
 * turned into a shared one is a real change of that page).
 */
function templateOf(
  before: TokenizedMarkdown,
  old: MarkdownBlock | undefined,
  after: TokenizedMarkdown,
  now: MarkdownBlock | undefined,
  ctx: NoiseContext,
): string | undefined {
  const oldSketch = old && ctx.templateBefore ? blockSketch(before, old) : undefined;
  const nowSketch = now && ctx.templateAfter ? blockSketch(after, now) : undefined;
  const oldTemplate = oldSketch !== undefined && ctx.templateBefore!(oldSketch);
  const nowTemplate = nowSketch !== undefined && ctx.templateAfter!(nowSketch);
  if (old && now) return oldTemplate && nowTemplate ? `${oldSketch}>${nowSketch}` : undefined;
  if (now) return nowTemplate ? `>${nowSketch}` : undefined;
  return oldTemplate ? `${oldSketch}>` : undefined;
}

function shown(doc: TokenizedMarkdown, block: MarkdownBlock): string {
  const text = tokensText(doc.tokens.slice(block.start, block.end));
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}
