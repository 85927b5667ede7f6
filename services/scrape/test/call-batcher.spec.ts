import { describe, expect, it } from '@jest/globals';
import { CallBatcher } from '../src/batching/call-batcher.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A batcher over a send that records each call's items and answers each item doubled. */
const recording = (maxInFlight: number, maxBatch: number, lingerMs = 0) => {
  const calls: number[][] = [];
  const batcher = new CallBatcher<number, number>(
    async (items) => {
      calls.push(items);
      await sleep(5);
      return items.map((i) => i * 2);
    },
    maxInFlight,
    maxBatch,
    lingerMs,
  );
  return { calls, batcher };
};

describe('CallBatcher', () => {
  it('sends an item at once when no call is out, and what arrives meanwhile in the next call', async () => {
    const { calls, batcher } = recording(1, 10);
    const answers = await Promise.all([1, 2, 3].map((i) => batcher.call(i)));
    expect(answers).toEqual([2, 4, 6]);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('with a linger, holds the first item for company and sends those that came within it together', async () => {
    // A linger far above the pause between the items: on a loaded machine a 10 ms sleep took
    // past a 40 ms linger, and the first item rightly went with the second the moment it came.
    const { calls, batcher } = recording(2, 10, 1000);
    const first = batcher.call(1);
    await sleep(10);
    const second = batcher.call(2);
    expect(calls).toEqual([]);
    expect(await Promise.all([first, second])).toEqual([2, 4]);
    expect(calls).toEqual([[1, 2]]);
  });

  it('with a linger, sends the items of one turn together even when the turn outlasts the linger', async () => {
    const { calls, batcher } = recording(2, 10, 5);
    const first = batcher.call(1);
    const until = performance.now() + 20; // the turn goes on past the first item's linger
    while (performance.now() < until);
    const rest = [2, 3].map((i) => batcher.call(i));
    expect(await Promise.all([first, ...rest])).toEqual([2, 4, 6]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('with a linger, sends as soon as a full batch waits', async () => {
    const { calls, batcher } = recording(2, 3, 10_000);
    // (A batch that waited out its 10 s linger would fail this test by jest's 5 s timeout.)
    expect(await Promise.all([1, 2, 3].map((i) => batcher.call(i)))).toEqual([2, 4, 6]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('with a linger, waits for company only while more items are expected', async () => {
    let expected = true;
    const calls: number[][] = [];
    const batcher = new CallBatcher<number, number>(
      async (items) => {
        calls.push(items);
        return items;
      },
      2,
      10,
      10_000,
      () => expected,
    );
    const first = batcher.call(1);
    await sleep(20);
    expect(calls).toEqual([]); // more are expected: it lingers
    expected = false;
    // The next item finds nothing else coming: both go at once (not after the 10 s linger).
    expect(await Promise.all([first, batcher.call(2)])).toEqual([1, 2]);
    expect(calls).toEqual([[1, 2]]);
  });

  it('fails every item of a call that fails, and goes on with the next', async () => {
    let fail = true;
    const batcher = new CallBatcher<number, number>(
      async (items) => {
        if (fail) {
          fail = false;
          throw new Error('billing down');
        }
        return items;
      },
      1,
      10,
      5,
    );
    const outcomes = await Promise.allSettled([batcher.call(1), batcher.call(2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await batcher.call(3)).toBe(3);
  });
});
