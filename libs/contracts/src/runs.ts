import { z } from 'zod';
import { RunTrigger, ScopeVerdict } from './generated/tidemark/crawl/v1/crawl.js';
import { protoEnum } from './proto-enum.js';
import { JOB_STATUSES } from './scrape.js';

export const RUN_TRIGGERS = ['manual', 'schedule', 'crawl', 'api', 'recrawl'] as const;
export type RunTriggerName = (typeof RUN_TRIGGERS)[number];
export const runTriggerEnum = protoEnum(RunTrigger, 'RUN_TRIGGER', RUN_TRIGGERS);

/** What a project's scope makes of a URL (POST /projects/{id}/dry-run, sources/preview). */
export const SCOPE_VERDICTS = ['in', 'excluded', 'not_included', 'other_host', 'too_deep', 'not a URL'] as const;
export const scopeVerdictEnum = protoEnum(ScopeVerdict, 'SCOPE_VERDICT', SCOPE_VERDICTS);

/** One run of a project, as GET /projects/{id}/runs/{run} shows it. */
export const runSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    status: z.enum(JOB_STATUSES),
    trigger: z.string().describe('manual (POST .../runs), schedule, crawl (a kept crawl), api (POST /projects/run)'),
    progress: z.object({ done: z.number().int(), total: z.number().int(), queued: z.number().int() }),
    counts: z.record(z.string(), z.number().int()).describe('pages per verdict (error: nothing answered)'),
    creditsUsed: z.number().int(),
    stop: z
      .string()
      .nullable()
      .describe('exhausted, limit, depth, budget, credits_exhausted, cancelled or error; null while running'),
    engines: z
      .record(z.string(), z.number().int())
      .describe('pages per method that read them: http, browser, browser+exit, cache (none: not fetched)'),
    log: z
      .array(z.object({ at: z.string(), message: z.string() }))
      .describe('what happened, oldest first: start, discovery, stop'),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'Run' });
export type RunRecord = z.infer<typeof runSchema>;

export const runStartSchema = z
  .strictObject({ trigger: z.enum(['manual', 'api']).optional() })
  .meta({ id: 'RunStart' });

export const runsStartSchema = z
  .strictObject({ project_ids: z.array(z.string().min(1)).min(1).max(100) })
  .meta({ id: 'RunsStart' });
