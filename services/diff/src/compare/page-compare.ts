// One page against its previous version: the noise filter first, then the word diff of what is
// left. A page whose only changes are noise is unchanged (and marked volatile).

import { tokenizeMarkdown, type TokenizedMarkdown } from './markdown-tokens.js';
import {
  DEFAULT_NOISE_OPTIONS,
  filterNoise,
  recordComparison,
  type IgnoredBlockChange,
  type NoiseOptions,
} from './noise-filter.js';
import type { PageNoise } from './noise-state.js';
import { diffWords, type WordDiff } from './word-diff.js';

export interface PageComparison extends WordDiff {
  /** Something other than noise changed (a hunk, even one of link targets only). */
  changed: boolean;
  /** Something changed, and all of it was noise. */
  volatile: boolean;
  /** Block changes the noise filter set aside. */
  volatileBlocks: number;
  ignored: IgnoredBlockChange[];
  /** The page's noise state after this comparison, for the caller to keep. */
  noise: PageNoise;
}

export interface ComparePageOptions {
  /** The page's noise state from earlier runs (none: no history yet). */
  noise?: PageNoise;
  /** Ordinal of this comparison (NoiseState.run + 1); consecutive runs make history. */
  run?: number;
  noiseOptions?: Partial<NoiseOptions>;
  templateBefore?: (sketch: string) => boolean;
  templateAfter?: (sketch: string) => boolean;
}

/** Compares two markdown versions of one page. */
export function comparePageContent(
  before: string | TokenizedMarkdown,
  after: string | TokenizedMarkdown,
  options: ComparePageOptions = {},
): PageComparison {
  const old = typeof before === 'string' ? tokenizeMarkdown(before) : before;
  const now = typeof after === 'string' ? tokenizeMarkdown(after) : after;
  const noiseOptions = { ...DEFAULT_NOISE_OPTIONS, ...options.noiseOptions };
  const run = options.run ?? 1;
  const verdict = filterNoise(old, now, options.noise, {
    run,
    options: noiseOptions,
    ...(options.templateBefore ? { templateBefore: options.templateBefore } : {}),
    ...(options.templateAfter ? { templateAfter: options.templateAfter } : {}),
  });
  const diff = diffWords(old, now, { ignoreBefore: verdict.ignoreBefore, ignoreAfter: verdict.ignoreAfter });
  const changed = diff.hunks.length > 0;
  return {
    ...diff,
    changed,
    volatile: !changed && verdict.ignored.length > 0,
    volatileBlocks: verdict.ignored.length,
    ignored: verdict.ignored,
    noise: recordComparison(options.noise, old, now, verdict.changedKeys, run, noiseOptions),
  };
}
