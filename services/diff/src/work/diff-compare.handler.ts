import type { WorkHandler } from '@tidemark/bus';
import type { ChangeService } from '../changes/change.service.js';

/** NATS in: `work.diff.compare`, a project run that ended. */
export const diffCompareHandler =
  (changes: ChangeService): WorkHandler<'work.diff.compare'> =>
  (msg) =>
    changes.compare(msg.runId);
