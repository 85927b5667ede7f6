import { expect } from '@jest/globals';
import type { CallOptions, TestFleet } from './fleet.js';

/**
 * Starts a run of a project and waits until the diff service has compared it: answers the run's
 * id and its change record (GET /projects/{id}/changes?run_id=…). `auth` is a key or a cookie.
 */
export const comparedRun = async (
  t: TestFleet,
  projectId: string,
  auth: Pick<CallOptions, 'key' | 'headers'>,
): Promise<{ runId: string; record: any }> => {
  const started = await t.call('POST', `/projects/${projectId}/runs`, auth);
  expect(started.status).toBe(202);
  const runId = started.body.id as string;
  for (let i = 0; i < 600; i++) {
    const changes = await t.call('GET', `/projects/${projectId}/changes?run_id=${runId}`, auth);
    if (changes.status === 200) return { runId, record: changes.body };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} was never compared`);
};
