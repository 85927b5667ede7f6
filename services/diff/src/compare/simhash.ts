// Near-duplicate pages by simhash (Charikar 2002, as used by Manku, Jain & Das Sarma,
// "Detecting Near-Duplicates for Web Crawling", WWW 2007): a 64-bit fingerprint whose Hamming
// distance tracks how different two texts are; pages within 3 bits are near-duplicates. Used
// to pair a removed URL with an added one carrying the same page (a move), and exposed for the
// wiring to group near-duplicate pages of a run.

import { hashLanes } from './hash.js';
import { tokenizeMarkdown, type TokenizedMarkdown } from './markdown-tokens.js';

/** Manku et al.'s choice for 64-bit fingerprints of web pages. */
export const NEAR_DUPLICATE_BITS = 3;

/** 64-bit simhash of a page's words (lower-cased, volatile spans masked), as 16 hex digits. */
export function simhash(markdown: string | TokenizedMarkdown): string {
  const doc = typeof markdown === 'string' ? tokenizeMarkdown(markdown) : markdown;
  const weights = new Map<string, number>();
  for (const token of doc.tokens) {
    if (!token.word) continue;
    const feature = token.key.toLowerCase();
    weights.set(feature, (weights.get(feature) ?? 0) + 1);
  }
  const sums = new Float64Array(64);
  for (const [feature, weight] of weights) {
    const [hi, lo] = hashLanes(feature);
    for (let bit = 0; bit < 32; bit++) {
      sums[bit] = sums[bit]! + ((hi >>> bit) & 1 ? weight : -weight);
      sums[32 + bit] = sums[32 + bit]! + ((lo >>> bit) & 1 ? weight : -weight);
    }
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (sums[bit]! > 0) hi |= 1 << bit;
    if (sums[32 + bit]! > 0) lo |= 1 << bit;
  }
  return hex32(hi) + hex32(lo);
}

/** Bits that differ between two fingerprints. */
export function hammingDistance(p: string, q: string): number {
  return (
    popcount(parseInt(p.slice(0, 8), 16) ^ parseInt(q.slice(0, 8), 16)) +
    popcount(parseInt(p.slice(8), 16) ^ parseInt(q.slice(8), 16))
  );
}

/**
 * Fingerprints indexed by each of their four 16-bit blocks: two fingerprints within 3 bits
 * agree on at least one whole block (pigeonhole), so a query compares only the fingerprints
 * sharing a block with it instead of all of them (Manku et al., §3).
 */
export class SimhashIndex<T> {
  private readonly tables: Array<Map<string, Array<{ fingerprint: string; item: T }>>> = [
    new Map(),
    new Map(),
    new Map(),
    new Map(),
  ];

  add(fingerprint: string, item: T): void {
    for (let block = 0; block < 4; block++) {
      const key = fingerprint.slice(block * 4, block * 4 + 4);
      const bucket = this.tables[block]!.get(key);
      if (bucket) bucket.push({ fingerprint, item });
      else this.tables[block]!.set(key, [{ fingerprint, item }]);
    }
  }

  /** Items within maxBits (at most 3: all the block tables guarantee) of the fingerprint, nearest first. */
  near(fingerprint: string, maxBits: number = NEAR_DUPLICATE_BITS): Array<{ item: T; distance: number }> {
    maxBits = Math.min(maxBits, NEAR_DUPLICATE_BITS);
    const found = new Map<T, number>();
    for (let block = 0; block < 4; block++) {
      for (const entry of this.tables[block]!.get(fingerprint.slice(block * 4, block * 4 + 4)) ?? []) {
        if (found.has(entry.item)) continue;
        const distance = hammingDistance(fingerprint, entry.fingerprint);
        if (distance <= maxBits) found.set(entry.item, distance);
      }
    }
    return [...found].map(([item, distance]) => ({ item, distance })).sort((p, q) => p.distance - q.distance);
  }
}

const hex32 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

function popcount(n: number): number {
  n = n - ((n >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
