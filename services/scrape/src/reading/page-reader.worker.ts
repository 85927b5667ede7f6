import { explainRemovals, parseDocument, readFields } from '@tidemark/content';
import { serveTasks } from '@tidemark/thread-pool';
import { readDocument } from './documents/read-document.js';
import { readPage } from './read-page.js';
import type { ReaderTask } from './reader-task.js';

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

// A document is read asynchronously (pdf.js); one task at a time all the same.
serveTasks<ReaderTask>(run);
