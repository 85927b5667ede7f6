import { serveTasks } from '../src/index.js';

export type EchoTask =
  { kind: 'echo'; value: string } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'spin' } | { kind: 'throw' };

// A thread for the pool's spec: answers, counts bytes moved to it, spins for ever, or throws.
serveTasks<EchoTask>((task) => {
  if (task.kind === 'echo') return `echo ${task.value}`;
  if (task.kind === 'bytes') return task.bytes.byteLength;
  if (task.kind === 'throw') throw new Error('no such thing');
  for (;;);
});
