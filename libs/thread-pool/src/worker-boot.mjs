// Entry of every pool thread. The services run their TypeScript through tsx; a worker does not
// inherit the parent's loader, so it registers tsx itself before it imports the thread's module
// (named in workerData.entry).
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
