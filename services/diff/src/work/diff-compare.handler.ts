import type { WorkHandler } from '@tidemark/bus';
import type { ChangeService } from '../changes/change.service.js';

/** NATS in: `work.diff.compare`, a project run that ended. */
export const diffCompareHandler =
  (changes: ChangeService): WorkHandler<'work.diff.compare'> =>
  (msg) =>
    changes.compare(msg.runId);

/** NATS in: `work.diff.digest`, the model-written digest of a compared run. */
export const diffDigestHandler =
  (changes: ChangeService): WorkHandler<'work.diff.digest'> =>
  (msg) =>
    changes.storeDigest(msg.runId, msg.digest);
