import { threadId } from 'node:worker_threads';
import { serveTasks } from '../src/index.js';

export type EchoTask =
  | { kind: 'echo'; value: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'spin' }
  | { kind: 'throw' }
  | { kind: 'hold'; ms: number }
  | { kind: 'meet'; cell: Int32Array; of: number };

// A thread for the pool's spec: answers, counts bytes moved to it, spins for ever, throws, or
// holds its thread a while (or until `of` tasks are running at once, 5 s at most) and says which
// thread it was.
serveTasks<EchoTask>((task) => {
  if (task.kind === 'echo') return `echo ${task.value}`;
  if (task.kind === 'hold') {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, task.ms);
    return threadId;
  }
  if (task.kind === 'meet') {
    Atomics.add(task.cell, 0, 1);
    Atomics.notify(task.cell, 0);
    const until = Date.now() + 5_000;
    for (let n = Atomics.load(task.cell, 0); n < task.of && Date.now() < until; n = Atomics.load(task.cell, 0))
      Atomics.wait(task.cell, 0, n, until - Date.now());
    return threadId;
  }
  if (task.kind === 'bytes') return task.bytes.byteLength;
  if (task.kind === 'throw') throw new Error('no such thing');
  for (;;);
});
