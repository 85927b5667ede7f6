import { serveTasks } from '@tidemark/thread-pool';
import { runSelectorTask, type SelectorTask } from './tasks.js';

/**
 * One selector thread: runs what the pool hands it, one task at a time. The pool ends this
 * thread when a task outruns its budget, so nothing here needs to watch time.
 */
serveTasks<SelectorTask>(runSelectorTask);
