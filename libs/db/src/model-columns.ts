import { Prisma } from './generated/prisma/client.js';

/**
 * The `page`, `job` and `project` tables' columns under the field names of Prisma's models,
 * so a raw read (`SELECT ${PAGE_COLUMNS} FROM page …` on RawDb) answers the same objects
 * a Prisma read would. Kept beside the schema they mirror: a column added there is added here.
 */
export const PAGE_COLUMNS = Prisma.raw(
  `id, workspace_id AS "workspaceId", run_id AS "runId", job_id AS "jobId", position, url, status,
   http_status AS "httpStatus", verdict, error_code AS "errorCode", tier, credits, data, bodies, screenshot,
   crawled_at AS "crawledAt", attempt`,
);

export const JOB_COLUMNS = Prisma.raw(
  `id, workspace_id AS "workspaceId", kind, status, progress, credits_used AS "creditsUsed", counts, stop, error,
   request_id AS "requestId", request, secret, run_id AS "runId", result, dispatched,
   dispatch_window AS "dispatchWindow", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export const PROJECT_COLUMNS = Prisma.raw(
  `id, workspace_id AS "workspaceId", name, seed, host, schedule, retention, config, config_version AS "configVersion",
   ephemeral, created_at AS "createdAt", updated_at AS "updatedAt"`,
);
