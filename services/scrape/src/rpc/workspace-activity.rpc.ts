import type { scrapeV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { JobRepository } from '../repositories/job.repository.js';
import type { PageRepository } from '../repositories/page.repository.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** gRPC in: what a workspace fetched per day (usage) and what it has going now (monitor). */
export const workspaceActivityRpc = (jobs: JobRepository, pages: PageRepository) => ({
  pageUsage: async (req: scrapeV1.PageUsageRequest): Promise<scrapeV1.PageUsageResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    if (!DAY.test(req.sinceDay)) throw new ValidationError('since_day must be YYYY-MM-DD');
    return { days: await pages.usageByDay(req.workspaceId, new Date(`${req.sinceDay}T00:00:00Z`)) };
  },
  activeJobs: async (req: scrapeV1.ActiveJobsRequest): Promise<scrapeV1.ActiveJobsResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    const rows = await jobs.active(req.workspaceId, ['scrape', 'playground'], Math.min(Math.max(req.limit, 1), 200));
    return {
      jobs: rows.map((j) => {
        const p = j.progress as { done?: number; total?: number; queued?: number };
        return {
          id: j.id,
          kind: j.kind,
          status: j.status,
          done: p.done ?? 0,
          total: p.total ?? 0,
          queued: p.queued ?? 0,
          creditsUsed: j.creditsUsed,
          createdAt: j.createdAt.toISOString(),
        };
      }),
    };
  },
});
