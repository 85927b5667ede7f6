import { describe, expect, it } from '@jest/globals';
import { gapsBetween, matchSequences, type MatchRun } from '../src/compare/sequence-diff.js';

/** Length of the longest common subsequence by dynamic programming: the reference answer. */
function lcsLength(a: number[], b: number[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Checks the runs are in order, inside both sequences, and really equal. */
function assertValid(a: number[], b: number[], runs: MatchRun[]): number {
  let aPos = 0;
  let bPos = 0;
  let matched = 0;
  for (const run of runs) {
    expect(run.a).toBeGreaterThanOrEqual(aPos);
    expect(run.b).toBeGreaterThanOrEqual(bPos);
    for (let i = 0; i < run.length; i++) expect(a[run.a + i]).toBe(b[run.b + i]);
    aPos = run.a + run.length;
    bPos = run.b + run.length;
    matched += run.length;
  }
  expect(aPos).toBeLessThanOrEqual(a.length);
  expect(bPos).toBeLessThanOrEqual(b.length);
  return matched;
}

/** A deterministic pseudo-random generator (mulberry32) so failures can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('matchSequences', () => {
  it('matches the unchanged items around an insertion and a deletion', () => {
    const runs = matchSequences([1, 2, 3, 4, 5], [1, 2, 9, 3, 5]);
    expect(runs).toEqual([
      { a: 0, b: 0, length: 2 },
      { a: 2, b: 3, length: 1 },
      { a: 4, b: 4, length: 1 },
    ]);
    expect(gapsBetween(runs, 5, 5)).toEqual([
      { aStart: 2, aEnd: 2, bStart: 2, bEnd: 3 },
      { aStart: 3, aEnd: 4, bStart: 4, bEnd: 4 },
    ]);
  });

  it('handles empty sides', () => {
    expect(matchSequences([], [1, 2])).toEqual([]);
    expect(gapsBetween([], 0, 2)).toEqual([{ aStart: 0, aEnd: 0, bStart: 0, bEnd: 2 }]);
    expect(matchSequences([1, 2], [])).toEqual([]);
    expect(gapsBetween(matchSequences([3], [3]), 1, 1)).toEqual([]);
  });

  it('finds a longest common subsequence on 400 random pairs (checked against dynamic programming)', () => {
    const next = random(42);
    for (let round = 0; round < 400; round++) {
      const alphabet = 2 + Math.floor(next() * 6);
      const a = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * alphabet));
      const b = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * alphabet));
      const matched = assertValid(a, b, matchSequences(a, b));
      expect(matched).toBe(lcsLength(a, b));
    }
  });

  it('stays valid when the cost cap forces patience anchors', () => {
    const next = random(7);
    for (let round = 0; round < 100; round++) {
      const a = Array.from({ length: 60 + Math.floor(next() * 60) }, () => Math.floor(next() * 30));
      const b = a.flatMap((v) => (next() < 0.2 ? [] : next() < 0.2 ? [v, 100 + Math.floor(next() * 30)] : [v]));
      expect(assertValid(a, b, matchSequences(a, b, 2))).toBeLessThanOrEqual(lcsLength(a, b));
    }
  });

  it('stays close to optimal past the cost cap when most items are distinct, as words of prose are', () => {
    const next = random(11);
    for (let round = 0; round < 50; round++) {
      const a = Array.from({ length: 300 }, () => Math.floor(next() * 2000));
      const b = a.flatMap((v) => (next() < 0.1 ? [] : next() < 0.1 ? [v, 5000 + Math.floor(next() * 2000)] : [v]));
      const matched = assertValid(a, b, matchSequences(a, b, 4));
      expect(matched).toBeGreaterThanOrEqual(Math.floor(lcsLength(a, b) * 0.95));
    }
  });

  it('reports two unrelated sequences as one replacement when no anchor exists', () => {
    const a = Array.from({ length: 5000 }, (_, i) => i % 50);
    const b = Array.from({ length: 5000 }, (_, i) => 1000 + (i % 50));
    const runs = matchSequences(a, b, 16);
    expect(runs).toEqual([]);
    expect(gapsBetween(runs, a.length, b.length)).toEqual([{ aStart: 0, aEnd: 5000, bStart: 0, bEnd: 5000 }]);
  });
});
