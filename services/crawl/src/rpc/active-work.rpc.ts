import type { crawlV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { CrawlJobRepository } from '../repositories/crawl-job.repository.js';

/** gRPC in: a workspace's runs and crawls going now (the monitor view). */
export const activeWorkRpc = (jobs: CrawlJobRepository) => ({
  activeWork: async (req: crawlV1.ActiveWorkRequest): Promise<crawlV1.ActiveWorkResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    const rows = await jobs.activeOf(req.workspaceId, Math.min(Math.max(req.limit, 1), 200));
    return {
      items: rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        status: r.status,
        projectId: r.projectId,
        projectName: r.projectName,
        runId: r.runId,
        done: r.progress.done ?? 0,
        total: r.progress.total ?? 0,
        queued: r.progress.queued ?? 0,
        creditsUsed: r.creditsUsed,
        createdAt: r.createdAt.toISOString(),
      })),
    };
  },
});
