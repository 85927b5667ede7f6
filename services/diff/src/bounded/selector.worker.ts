import { parentPort } from 'node:worker_threads';
import { runSelectorTask, type SelectorReply, type SelectorTask } from './tasks.js';

/**
 * One selector thread: runs what the pool hands it, one task at a time. The pool ends this
 * thread when a task outruns its budget, so nothing here needs to watch time.
 */
parentPort!.on('message', (task: SelectorTask & { id: number }) => {
  let reply: SelectorReply;
  try {
    reply = { id: task.id, ok: true, value: runSelectorTask(task) };
  } catch (err) {
    reply = { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});

// Imports are done: the pool may hand this thread work (and start its budget clock).
parentPort!.postMessage({ ready: true });
