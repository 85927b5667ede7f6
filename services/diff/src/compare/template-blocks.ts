// Template pagelets: blocks a site repeats on many pages (a footer, a promo strip, a sidebar),
// found as Bar-Yossef & Rajagopalan do ("Template detection via data mining and its
// applications", WWW 2002): each pagelet is reduced to a shingle fingerprint, and a fingerprint
// carried by many pages of one crawl is a template. A change to a template block is reported
// once for the run, not once per page.

import { fmix32, hash32 } from './hash.js';
import type { MarkdownBlock, TokenizedMarkdown } from './markdown-tokens.js';

/** Words per shingle, and how many of the smallest shingle hashes make the fingerprint. */
export const SHINGLE_WORDS = 4;
export const SKETCH_SIZE = 8;

/**
 * A block's near-duplicate fingerprint: the SKETCH_SIZE smallest hashes of its 4-word shingles
 * (a bottom-k min-hash sketch), over lower-cased tokens with volatile spans masked, so "© 2024
 * Acme" and "© 2025 Acme" share one. Equal sketches mean near-identical text.
 */
export function blockSketch(doc: TokenizedMarkdown, block: MarkdownBlock): string {
  const count = block.end - block.start;
  const words = new Uint32Array(count);
  for (let i = 0; i < count; i++) words[i] = hash32(doc.tokens[block.start + i]!.key.toLowerCase());
  if (count <= SHINGLE_WORDS) return shingleHash(words, 0, count).toString(36);
  // The SKETCH_SIZE smallest distinct shingle hashes, kept sorted as they are found.
  const smallest: number[] = [];
  for (let i = 0; i + SHINGLE_WORDS <= count; i++) {
    const h = shingleHash(words, i, SHINGLE_WORDS);
    if (smallest.length === SKETCH_SIZE && h >= smallest[SKETCH_SIZE - 1]!) continue;
    let at = smallest.length;
    while (at > 0 && smallest[at - 1]! > h) at--;
    if (smallest[at - 1] === h) continue;
    smallest.splice(at, 0, h);
    if (smallest.length > SKETCH_SIZE) smallest.pop();
  }
  return smallest.map((h) => h.toString(36)).join('.');
}

/** A shingle's hash from its words' hashes: order-sensitive, one multiply-rotate per word. */
function shingleHash(words: Uint32Array, start: number, length: number): number {
  let h = 0x9e3779b9 ^ length;
  for (let i = start; i < start + length; i++) {
    h = Math.imul(h ^ words[i]!, 0x85ebca6b);
    h = (h << 13) | (h >>> 19);
  }
  return fmix32(h);
}

export interface TemplateThresholds {
  /** Least pages a pagelet must appear on. */
  minPages: number;
  /** Least share of the run's readable pages it must appear on. */
  minShare: number;
}

export const DEFAULT_TEMPLATE_THRESHOLDS: TemplateThresholds = { minPages: 3, minShare: 0.25 };

/** Pages per block sketch within one run; answers whether a sketch is a template pagelet. */
export class TemplateIndex {
  private readonly pages = new Map<string, number>();

  constructor(
    /** Readable pages of the run (the share's denominator), not only the ones indexed. */
    private readonly runPages: number,
    private readonly thresholds: TemplateThresholds = DEFAULT_TEMPLATE_THRESHOLDS,
  ) {}

  /** Adds one page: each distinct sketch counts once for it. */
  addPage(doc: TokenizedMarkdown): void {
    const sketches = new Set(doc.blocks.filter((b) => !b.heading).map((b) => blockSketch(doc, b)));
    for (const sketch of sketches) this.pages.set(sketch, (this.pages.get(sketch) ?? 0) + 1);
  }

  pagesWith(sketch: string): number {
    return this.pages.get(sketch) ?? 0;
  }

  isTemplate(sketch: string): boolean {
    const count = this.pagesWith(sketch);
    return count >= this.thresholds.minPages && count >= this.thresholds.minShare * this.runPages;
  }
}
