import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { BudgetedThreadPool, type PoolFailure, WALL_BUDGETS } from '../src/index.js';
import type { EchoTask } from './echo.worker.js';

class Failed extends Error {
  constructor(
    readonly failure: PoolFailure<EchoTask>['kind'],
    message: string,
  ) {
    super(message);
  }
}

const pool = new BudgetedThreadPool<EchoTask>({
  entry: new URL('./echo.worker.ts', import.meta.url),
  threads: 2,
  budgetMs: 1_000,
  heapMb: 128,
  name: 'the echo pool',
  logger: createLogger('test', 'silent'),
  failure: (f) => new Failed(f.kind, f.kind === 'budget' ? `${f.task.kind} past ${f.budgetMs} ms` : f.kind),
  transfer: (task) => (task.kind === 'bytes' ? [task.bytes.buffer as ArrayBuffer] : []),
});

/** A pool of echo threads of its own for one test: `name` is what its errors say it is. */
const echoPool = (name: string, opts: { threads: number; bulkThreads?: number; warm?: number }) =>
  new BudgetedThreadPool<EchoTask>({
    entry: new URL('./echo.worker.ts', import.meta.url),
    ...opts,
    budgetMs: 5_000,
    heapMb: 128,
    name,
    logger: createLogger('test', 'silent'),
    failure: (f) => new Failed(f.kind, f.kind),
  });

describe('BudgetedThreadPool: tasks on threads, each within a budget', () => {
  afterAll(() => pool.close());

  it('answers tasks, several at once', async () => {
    const answers = await Promise.all(['a', 'b', 'c'].map((value) => pool.run<string>({ kind: 'echo', value })));
    expect(answers).toEqual(['echo a', 'echo b', 'echo c']);
  });

  it('moves the buffers it is told to instead of copying them', async () => {
    const bytes = new Uint8Array(4096);
    expect(await pool.run<number>({ kind: 'bytes', bytes })).toBe(4096);
    expect(bytes.byteLength).toBe(0);
  });

  it('gives a task that throws as the owner words it, and the thread goes on', async () => {
    await expect(pool.run({ kind: 'throw' })).rejects.toMatchObject({ failure: 'threw' });
    expect(await pool.run<string>({ kind: 'echo', value: 'after' })).toBe('echo after');
  });

  it('ends a task past its budget with its thread, while the other thread answers', async () => {
    const spin = pool.run({ kind: 'spin' });
    expect(await pool.run<string>({ kind: 'echo', value: 'beside' })).toBe('echo beside');
    await expect(spin).rejects.toMatchObject({ failure: 'budget', message: 'spin past 1000 ms' });
    expect(await pool.run<string>({ kind: 'echo', value: 'then' })).toBe('echo then');
  });

  it("counts a task's budget in its thread's CPU time: a task that waits past it on the wall clock answers", async () => {
    // Held without running (as a task is on a machine whose cores are busy) for 1.5 budgets.
    expect(await pool.run<number>({ kind: 'hold', ms: 1_500 })).toEqual(expect.any(Number));
  });

  it(`ends a task that holds its thread past ${WALL_BUDGETS} budgets on the wall clock`, async () => {
    await expect(pool.run({ kind: 'hold', ms: (WALL_BUDGETS + 2) * 1_000 })).rejects.toMatchObject({
      failure: 'budget',
      message: 'hold past 1000 ms',
    });
    expect(await pool.run<string>({ kind: 'echo', value: 'then' })).toBe('echo then');
  });

  it('starts `warm` threads with the pool, and the others as work comes', async () => {
    const warm = echoPool('the warm pool', { threads: 2, warm: 1 });
    const cold = echoPool('the cold pool', { threads: 2 });
    try {
      expect([warm.threadCount, cold.threadCount]).toEqual([1, 0]);
      expect(await warm.run<string>({ kind: 'echo', value: 'w' })).toBe('echo w');
      expect(warm.threadCount).toBe(1);
    } finally {
      await Promise.all([warm.close(), cold.close()]);
    }
  });

  it('gives bulk tasks the threads past `threads`, and other tasks only the first ones', async () => {
    const lanes = echoPool('the lanes pool', { threads: 1, bulkThreads: 3 });
    try {
      const hold = (bulk: boolean) => lanes.run<number>({ kind: 'hold', ms: 150 }, undefined, { bulk });
      // Three bulk tasks that each wait until all three run at once: three threads start.
      const cell = new Int32Array(new SharedArrayBuffer(4));
      const meet = () => lanes.run<number>({ kind: 'meet', cell, of: 3 }, undefined, { bulk: true });
      const bulk = await Promise.all([meet(), meet(), meet()]);
      expect(new Set(bulk).size).toBe(3);
      // With those threads idle, three tasks a caller waits on all run on the first thread.
      const waited = await Promise.all([hold(false), hold(false), hold(false)]);
      expect(new Set(waited).size).toBe(1);
      expect(bulk).toContain(waited[0]);
      // Mixed: the bulk ones may still take the other threads meanwhile.
      const mixed = await Promise.all([hold(false), hold(true), hold(false), hold(true)]);
      expect(new Set([mixed[0], mixed[2]]).size).toBe(1);
      expect(new Set(mixed).size).toBeGreaterThan(1);
    } finally {
      await lanes.close();
    }
  });

  it('drops a waiting task when it is aborted, and refuses work once closed', async () => {
    const one = echoPool('the small pool', { threads: 1 });
    const busy = one.run({ kind: 'spin' });
    const abort = new AbortController();
    const waiting = one.run({ kind: 'echo', value: 'x' }, abort.signal);
    abort.abort();
    await expect(waiting).rejects.toThrow('cancelled');
    const busyEnds = expect(busy).rejects.toThrow('the small pool is closed');
    await one.close();
    await busyEnds;
    await expect(one.run({ kind: 'echo', value: 'y' })).rejects.toThrow('the small pool is closed');
  });
});
