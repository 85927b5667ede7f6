// The word-level content diff of one page (GET /projects/{id}/changes/page): tokens of both
// markdown versions matched with Myers' algorithm; each stretch between matches is a hunk,
// placed in the section (nearest preceding heading) it falls in.

import { tokenizeMarkdown, tokensText, type Token, type TokenizedMarkdown } from './markdown-tokens.js';
import { gapsBetween, Interner, matchSequences } from './sequence-diff.js';

export interface WordHunk {
  /** Heading the hunk falls under (of the new version; of the old one for a pure removal). */
  section: string | null;
  removed: string;
  added: string;
  wordsRemoved: number;
  wordsAdded: number;
  /** Up to five unchanged tokens each side, from the new version. */
  contextBefore: string;
  contextAfter: string;
}

export interface WordDiff {
  wordsAdded: number;
  wordsRemoved: number;
  hunks: WordHunk[];
  /** The section with the most changed words (null: before the first heading, or no change). */
  section: string | null;
  /** Headings of every section with changes, the most changed words first. */
  sections: string[];
}

export interface WordDiffOptions {
  /** Blocks left out of the comparison (by index), e.g. the noise filter's volatile blocks. */
  ignoreBefore?: ReadonlySet<number>;
  ignoreAfter?: ReadonlySet<number>;
}

const CONTEXT_TOKENS = 5;

/** Diffs two markdown documents (or their tokenizations) word by word. */
export function diffWords(
  before: string | TokenizedMarkdown,
  after: string | TokenizedMarkdown,
  options: WordDiffOptions = {},
): WordDiff {
  const old = typeof before === 'string' ? tokenizeMarkdown(before) : before;
  const now = typeof after === 'string' ? tokenizeMarkdown(after) : after;
  const a = kept(old, options.ignoreBefore);
  const b = kept(now, options.ignoreAfter);
  const interner = new Interner<string>();
  const runs = matchSequences(interner.ids32(a.map((t) => t.key)), interner.ids32(b.map((t) => t.key)));

  const hunks: WordHunk[] = [];
  const bySection = new Map<string | null, number>();
  let wordsAdded = 0;
  let wordsRemoved = 0;
  for (const gap of gapsBetween(runs, a.length, b.length)) {
    const removed = a.slice(gap.aStart, gap.aEnd);
    const added = b.slice(gap.bStart, gap.bEnd);
    const hunk: WordHunk = {
      section: added.length ? sectionOf(now, added[0]!) : sectionOf(old, removed[0]!),
      removed: tokensText(removed),
      added: tokensText(added),
      wordsRemoved: countWords(removed),
      wordsAdded: countWords(added),
      contextBefore: tokensText(b.slice(Math.max(0, gap.bStart - CONTEXT_TOKENS), gap.bStart)),
      contextAfter: tokensText(b.slice(gap.bEnd, gap.bEnd + CONTEXT_TOKENS)),
    };
    hunks.push(hunk);
    wordsAdded += hunk.wordsAdded;
    wordsRemoved += hunk.wordsRemoved;
    bySection.set(hunk.section, (bySection.get(hunk.section) ?? 0) + hunk.wordsAdded + hunk.wordsRemoved);
  }
  const ranked = [...bySection].sort((p, q) => q[1] - p[1]).map(([section]) => section);
  const sections = ranked.filter((section): section is string => section !== null);
  return { wordsAdded, wordsRemoved, hunks, section: ranked[0] ?? null, sections };
}

function kept(doc: TokenizedMarkdown, ignore: ReadonlySet<number> | undefined): Token[] {
  return ignore?.size ? doc.tokens.filter((t) => !ignore.has(t.block)) : doc.tokens;
}

const sectionOf = (doc: TokenizedMarkdown, token: Token): string | null => doc.blocks[token.block]?.section ?? null;

const countWords = (tokens: readonly Token[]): number => tokens.reduce((n, t) => n + (t.word ? 1 : 0), 0);
