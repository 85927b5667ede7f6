// crawlV1.Run (CrawlService StartRun, GetRun, CancelRun, RecrawlRun, ListRuns) → the runs of
// /projects/{id}/runs…, POST /projects/run and /pages/recrawl; its REST schema is runSchema
// (libs/contracts/src/runs.ts).
import { jobStatusEnum, runTriggerEnum, type crawlV1, type RunRecord } from '@tidemark/contracts';
import { nullable, required } from './proto-values.js';

export const runToRest = (message: crawlV1.Run | undefined): RunRecord => {
  const run = required(message, 'Run');
  const progress = required(run.progress, 'Run.progress');
  return {
    id: run.id,
    projectId: run.projectId,
    status: jobStatusEnum.fromProto(run.status),
    trigger: runTriggerEnum.fromProto(run.trigger),
    progress: { done: progress.done, total: progress.total, queued: progress.queued },
    counts: { ...run.counts },
    creditsUsed: run.creditsUsed,
    stop: nullable(run.stop),
    engines: { ...run.engines },
    log: run.log.map((l) => ({ at: l.at, message: l.message })),
    createdAt: run.createdAt,
    startedAt: nullable(run.startedAt),
    finishedAt: nullable(run.finishedAt),
  };
};
