/// <reference lib="dom" />
// The project's `volatile_selectors` in the word diff. The word diff reads markdown, which keeps
// no elements: the selectors run over the page's stored html (volatileTexts, on a thread: they
// are the user's), and the text of each matched element is found again in the markdown's words,
// in document order (maskVolatileElements). Those words become one token whose key is
// ⟨volatile-selector⟩ on both sides, so a block whose only change is inside such an element
// differs in volatile spans only: the noise filter sets it aside (reason `pattern`, counted in
// volatileBlocks), as it does a timestamp.

import { LaneHasher } from './hash.js';
import type { MarkdownBlock, Token, TokenizedMarkdown } from './markdown-tokens.js';
import { parseHtml } from './dom-stability.js';

/** Elements read per page at most (a selector such as `span` on a long page matches thousands). */
export const MAX_VOLATILE_ELEMENTS = 2000;
/** Words compared at most while finding the elements' texts in a page's markdown. */
const MAX_MATCH_STEPS = 2_000_000;

export interface VolatileTexts {
  /** Text of each outermost matched element, in document order (empty ones left out). */
  texts: string[];
  /** Selectors linkedom could not read (syntax it does not know): they hide nothing. */
  invalid: string[];
}

/** The text of every element of the page matching one of the selectors (not nested twice). */
export function volatileTexts(html: string, selectors: readonly string[]): VolatileTexts {
  const doc = parseHtml(html);
  const matched = new Set<Element>();
  const invalid: string[] = [];
  for (const selector of selectors) {
    let found: Element[];
    try {
      found = Array.from(doc.querySelectorAll(selector));
    } catch {
      invalid.push(selector);
      continue;
    }
    for (const el of found) {
      if (matched.size >= MAX_VOLATILE_ELEMENTS) break;
      matched.add(el);
    }
  }
  const outermost: Element[] = [];
  for (const el of matched) {
    let inner = false;
    for (let p = el.parentElement; p && !inner; p = p.parentElement) inner = matched.has(p);
    if (!inner) outermost.push(el);
  }
  // Document order: an element before another precedes it (compareDocumentPosition's bit 4).
  outermost.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & 4 ? -1 : 1));
  const texts = outermost.map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean);
  return { texts, invalid };
}

export const VOLATILE_SELECTOR_KEY = '⟨volatile-selector⟩';

/** A word as matched: letters and digits only, so markdown's escapes and emphasis do not matter. */
const bare = (word: string): string => word.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

/**
 * The markdown with the words of each volatile element collapsed, per block, into one token
 * keyed VOLATILE_SELECTOR_KEY. Texts not found in the markdown (the element was not main
 * content) change nothing. Answers how many elements were found.
 */
export function maskVolatileElements(
  doc: TokenizedMarkdown,
  texts: readonly string[],
): { doc: TokenizedMarkdown; found: number } {
  // The page's words: each piece of a non-link token, with the token it belongs to.
  const words: string[] = [];
  const owner: number[] = [];
  doc.tokens.forEach((token, index) => {
    if (token.link) return;
    for (const piece of token.text.split(/\s+/)) {
      const w = bare(piece);
      if (!w) continue;
      words.push(w);
      owner.push(index);
    }
  });
  const masked = new Uint8Array(doc.tokens.length);
  let found = 0;
  let cursor = 0;
  let steps = 0;
  for (const text of texts) {
    const needle = text.split(/\s+/).map(bare).filter(Boolean);
    if (!needle.length) continue;
    let at = -1;
    for (let i = cursor; i + needle.length <= words.length && steps < MAX_MATCH_STEPS; i++) {
      let k = 0;
      while (k < needle.length && words[i + k] === needle[k]) k++;
      steps += k + 1;
      if (k === needle.length) {
        at = i;
        break;
      }
    }
    if (at < 0) continue;
    found++;
    for (let k = 0; k < needle.length; k++) masked[owner[at + k]!] = 1;
    cursor = at + needle.length;
  }
  if (!found) return { doc, found };

  // Rebuild tokens and blocks: a run of masked tokens within one block becomes one token.
  const tokens: Token[] = [];
  const blocks: MarkdownBlock[] = [];
  for (const block of doc.blocks) {
    const start = tokens.length;
    for (let i = block.start; i < block.end; i++) {
      const token = doc.tokens[i]!;
      if (!masked[i]) {
        tokens.push({ ...token, block: blocks.length });
        continue;
      }
      const last = tokens.length > start ? tokens[tokens.length - 1]! : null;
      if (last && last.key === VOLATILE_SELECTOR_KEY && masked[i - 1]) last.text += ` ${token.text}`;
      else tokens.push({ text: token.text, key: VOLATILE_SELECTOR_KEY, word: true, link: false, block: blocks.length });
    }
    const text = new LaneHasher();
    const keys = new LaneHasher();
    let changed = false;
    for (let i = start; i < tokens.length; i++) {
      text.add(tokens[i]!.text).add(' ');
      keys.add(tokens[i]!.key).add(' ');
      changed ||= tokens[i]!.key !== tokens[i]!.text;
    }
    const hash = text.fingerprint();
    blocks.push({ ...block, start, end: tokens.length, hash, maskedHash: changed ? keys.fingerprint() : hash });
  }
  return { doc: { tokens, blocks }, found };
}
