import { describe, expect, it } from '@jest/globals';
import { blockLogit, type BlockModel } from '../src/block-model.js';
import { BLOCK_MODEL } from '../src/block-model.weights.js';

/** The trees read node by node, as the training script writes them. */
function walkedLogit(model: BlockModel, x: Float64Array, row: number): number {
  const base = row * model.features.length;
  let sum = model.bias;
  for (const t of model.trees) {
    let n = 0;
    while (t[4 * n]! >= 0) n = x[base + t[4 * n]!]! <= t[4 * n + 1]! ? t[4 * n + 2]! : t[4 * n + 3]!;
    sum += t[4 * n + 1]!;
  }
  return sum;
}

/** Rows of features on, near and far from the model's thresholds, some NaN. */
function rows(model: BlockModel, n: number): Float64Array {
  const x = new Float64Array(n * model.features.length);
  const thresholds = model.trees.flatMap((t) => t.filter((_, k) => k % 4 === 1));
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < x.length; i++) {
    const r = next();
    const near = thresholds[Math.floor(next() * thresholds.length)]!;
    x[i] = r < 0.02 ? NaN : r < 0.3 ? near : near + (next() - 0.5) * 2;
  }
  return x;
}

const model = (trees: number[][]): BlockModel => ({
  features: ['a', 'b', 'c'],
  bias: 0.5,
  trees,
  threshold: 0.6,
  maxDrop: 0.3,
});
/** a ≤ 1: −3; else b ≤ 2: 7, else 11. */
const UNEVEN = [0, 1, 1, 2, -1, -3, 0, 0, 1, 2, 3, 4, -1, 7, 0, 0, -1, 11, 0, 0];
/** Three levels on a, b, c down its left side, one leaf on the right. */
const DEEP = [0, 5, 1, 2, 1, 5, 3, 4, -1, 1, 0, 0, 2, 5, 5, 6, -1, 2, 0, 0, -1, 3, 0, 0, -1, 4, 0, 0];

describe('blockLogit', () => {
  it('answers what walking the shipped trees node by node answers', () => {
    const shipped = BLOCK_MODEL!;
    const x = rows(shipped, 3000);
    for (let r = 0; r < 3000; r++) expect(blockLogit(shipped, x, r)).toBe(walkedLogit(shipped, x, r));
  });

  for (const [name, trees] of [
    ['depth 3, beside a tree of one leaf and an uneven one', [DEEP, [-1, 0.25, 0, 0], UNEVEN]],
    ['depth 2', [UNEVEN, [-1, 0.25, 0, 0]]],
    [
      'depth 0',
      [
        [-1, 0.25, 0, 0],
        [-1, 1, 0, 0],
      ],
    ],
  ] as [string, number[][]][]) {
    it(`reads trees of ${name} as walked node by node`, () => {
      const m = model(trees);
      const x = rows(m, 500);
      for (let r = 0; r < 500; r++) expect(blockLogit(m, x, r)).toBe(walkedLogit(m, x, r));
    });
  }

  it('sends a missing feature (NaN) right, as the walk does', () => {
    const m = model([UNEVEN]);
    const x = Float64Array.from([0, 0, 0, 2, 2, 0, 2, 3, 0, NaN, 0, 0]);
    expect([0, 1, 2, 3].map((r) => blockLogit(m, x, r))).toEqual([0.5 - 3, 0.5 + 7, 0.5 + 11, 0.5 + 7]);
  });
});
