import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { BudgetedThreadPool, type PoolFailure } from '../src/index.js';
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

  it('drops a waiting task when it is aborted, and refuses work once closed', async () => {
    const one = new BudgetedThreadPool<EchoTask>({
      entry: new URL('./echo.worker.ts', import.meta.url),
      threads: 1,
      budgetMs: 5_000,
      heapMb: 128,
      name: 'the small pool',
      logger: createLogger('test', 'silent'),
      failure: (f) => new Failed(f.kind, f.kind),
    });
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
