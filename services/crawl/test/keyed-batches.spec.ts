import { describe, expect, it } from '@jest/globals';
import { KeyedBatches } from '../src/crawl/engine/keyed-batches.js';

describe('keyed batches (results of one crawl settle together)', () => {
  it('runs what arrives during a batch as the next batch of that key, each key on its own', async () => {
    const runs: string[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((r) => (release = r));
    const batches = new KeyedBatches<string>(async (items) => {
      runs.push(items);
      if (items[0] === 'a1') await firstHeld;
    }, 10);
    const a1 = batches.add('crawl-a', 'a1');
    const waiting = ['a2', 'a3', 'a4'].map((i) => batches.add('crawl-a', i));
    const b1 = batches.add('crawl-b', 'b1');
    await b1; // another crawl's results do not wait behind crawl-a's step
    expect(runs).toEqual([['a1'], ['b1']]);
    release();
    await Promise.all([a1, ...waiting]);
    expect(runs).toEqual([['a1'], ['b1'], ['a2', 'a3', 'a4']]);
  });

  it('never puts more than the bound in one batch', async () => {
    const sizes: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const batches = new KeyedBatches<number>(async (items) => {
      sizes.push(items.length);
      if (items[0] === 0) await held;
    }, 3);
    const all = Array.from({ length: 8 }, (_, i) => batches.add('k', i));
    release();
    await Promise.all(all);
    expect(sizes).toEqual([1, 3, 3, 1]);
  });

  it('a failing batch runs again item by item: only the bad item rejects', async () => {
    const seen: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const batches = new KeyedBatches<string>(async (items) => {
      seen.push(items);
      if (items[0] === 'first') await held;
      if (items.includes('bad')) throw new Error('bad result');
    }, 10);
    const first = batches.add('k', 'first');
    const good = batches.add('k', 'good');
    const bad = batches.add('k', 'bad');
    const later = batches.add('k', 'later');
    release();
    await first;
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('bad result');
    await expect(later).resolves.toBeUndefined();
    expect(seen).toEqual([['first'], ['good', 'bad', 'later'], ['good'], ['bad'], ['later']]);
  });
});
