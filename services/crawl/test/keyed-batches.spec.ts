import { describe, expect, it, jest } from '@jest/globals';
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

  it('runs items that arrive together in one batch, without a linger', async () => {
    const runs: string[][] = [];
    const batches = new KeyedBatches<string>(async (items) => {
      runs.push(items);
    }, 10);
    await batches.addAll('k', ['a', 'b', 'c']);
    expect(runs).toEqual([['a', 'b', 'c']]);
  });

  describe('lingering for the items a key still expects', () => {
    it('waits for more items while fewer than enough are waiting, and runs as soon as enough are', async () => {
      // Fake clock (performance.now and setTimeout): the 5 s linger can only end by the third item.
      jest.useFakeTimers();
      try {
        const runs: string[][] = [];
        const batches = new KeyedBatches<string>(
          async (items) => {
            runs.push(items);
          },
          10,
          { ms: 5_000, enough: () => 3 },
        );
        const a = batches.add('k', 'a');
        const b = batches.add('k', 'b');
        await jest.advanceTimersByTimeAsync(20);
        expect(runs).toEqual([]); // two of the three expected: still waiting
        expect(jest.getTimerCount()).toBe(1); // on the linger
        let settled = false;
        const all = Promise.all([a, b, batches.add('k', 'c')]).then(() => (settled = true));
        await jest.advanceTimersByTimeAsync(0); // no time passes: only what is already due runs
        expect([settled, runs]).toEqual([true, [['a', 'b', 'c']]]);
        expect(jest.getTimerCount()).toBe(0); // the third ended the wait: the linger's timer is gone
        await all;
      } finally {
        jest.useRealTimers();
      }
    });

    it('runs what it has once its first item has waited the linger', async () => {
      const runs: string[][] = [];
      const batches = new KeyedBatches<string>(
        async (items) => {
          runs.push(items);
        },
        10,
        { ms: 30, enough: () => 5 },
      );
      await Promise.all([batches.add('k', 'a'), batches.add('k', 'b')]);
      expect(runs).toEqual([['a', 'b']]);
    });

    it('a key that expects one item never waits', async () => {
      const runs: string[][] = [];
      const batches = new KeyedBatches<string>(
        async (items) => {
          runs.push(items);
        },
        10,
        { ms: 60_000, enough: (key) => (key === 'busy' ? 4 : 1) },
      );
      await batches.add('quiet', 'q1');
      expect(runs).toEqual([['q1']]);
    });
  });
});
