// Template pagelets: blocks a site repeats on many pages (a footer, a promo strip, a sidebar),
// found as Bar-Yossef & Rajagopalan do ("Template detection via data mining and its
// applications", WWW 2002): each pagelet is reduced to a shingle fingerprint, and a fingerprint
// carried by many pages of one crawl is a template. A change to a template block is reported
// once for the run, not once per page.

import { hashLanes } from './hash.js';
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
  const words: string[] = [];
  for (let i = block.start; i < block.end; i++) words.push(doc.tokens[i]!.key.toLowerCase());
  if (words.length <= SHINGLE_WORDS) return hashLanes(words.join(' '))[0].toString(36);
  const hashes = new Set<number>();
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) {
    hashes.add(hashLanes(words.slice(i, i + SHINGLE_WORDS).join(' '))[0]);
  }
  return [...hashes]
    .sort((p, q) => p - q)
    .slice(0, SKETCH_SIZE)
    .map((h) => h.toString(36))
    .join('.');
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
