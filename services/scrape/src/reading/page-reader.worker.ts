import { parentPort } from 'node:worker_threads';
import { explainRemovals, parseDocument, readFields } from '@tidemark/content';
import { readDocument } from './documents/read-document.js';
import { readPage } from './read-page.js';
import type { ReaderReply, ReaderTask } from './reader-task.js';

/**
 * One page-reading thread: parses and reads what the pool hands it, one task at a time. The
 * pool ends this thread when a task outruns its budget, so nothing here needs to watch time.
 */
const run = (task: ReaderTask): unknown => {
  if (task.kind === 'read')
    return task.fetched.document
      ? readDocument(task.fetched, task.fetched.document, task.opts)
      : readPage(task.fetched, task.tier, task.opts, task.widget);
  if (task.kind === 'removals') return explainRemovals(parseDocument(task.markup), task.options);
  return readFields(parseDocument(task.markup), { m: { selector: task.selector, all: true } }, task.url);
};

parentPort!.on('message', async (task: ReaderTask & { id: number }) => {
  let reply: ReaderReply;
  try {
    // A document is read asynchronously (pdf.js); one task at a time all the same: the pool
    // hands this thread the next only when this one has answered.
    reply = { id: task.id, ok: true, value: await run(task) };
  } catch (err) {
    reply = { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});

// Imports are done: the pool may hand this thread work (and start its budget clock).
parentPort!.postMessage({ ready: true });
