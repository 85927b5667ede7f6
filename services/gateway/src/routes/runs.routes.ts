import {
  crawlV1,
  globListSchema,
  refuseGuardedUrl,
  runSchema,
  runStartSchema,
  runsStartSchema,
  type RunRecord,
} from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { idParam, listOf } from '../http/common.schemas.js';
import { encodeCursor, nextLink, pageQuery } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import {
  dryRunSchema,
  dryRunToRest,
  sourcesPreviewSchema,
  sourcesPreviewToRest,
  sourcesSchema,
  sourcesToRest,
} from '../mappers/project-scope.mapper.js';
import { toStruct } from '../mappers/proto-values.js';
import { runToRest } from '../mappers/run.mapper.js';
import type { ProjectService } from '../services/project.service.js';

const globs = globListSchema;
const scopeDraftSchema = z
  .strictObject({
    include_paths: globs.optional(),
    exclude_paths: globs.optional(),
    sitemap_include: globs.optional(),
    sitemap_exclude: globs.optional(),
    allow_subdomains: z.boolean().optional(),
    max_depth: z.number().int().min(0).max(1000).nullable().optional(),
  })
  .meta({ id: 'ScopeDraft' });

const runParams = z.object({ id: z.string().min(1).max(100), run: z.string().min(1).max(100) });

const runsStartedSchema = z
  .object({
    data: z.array(runSchema),
    refused: z
      .array(z.object({ projectId: z.string(), code: z.string(), error: z.string() }))
      .describe('projects that did not start, with the reason (not_found, conflict)'),
  })
  .meta({ id: 'RunsStarted' });

/** A project's runs: the gateway checks the key may see the project; the crawl service owns runs. */
export const runRoutes = (
  crawl: RpcClient<crawlV1.CrawlServiceClient>,
  projects: ProjectService,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'get',
    path: '/projects/:id/runs',
    tag: 'Runs',
    summary: 'Run history of a project, newest first',
    scope: 'read',
    params: idParam,
    query: pageQuery({ max: 100, default: 25 }),
    responses: { 200: { description: 'runs', schema: listOf(runSchema) } },
    handler: async ({ auth, params, query, req }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('listRuns', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        cursor: query.cursor ?? '',
        limit: query.limit,
      });
      const cursor = res.nextCursor ? encodeCursor(res.nextCursor) : null;
      return {
        status: 200,
        body: {
          data: res.runs.map(runToRest),
          next: cursor ? nextLink(req, cursor, query.limit, publicBaseUrl) : null,
          cursor,
        },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/runs',
    tag: 'Runs',
    summary: 'Start a run of the project (202); 409 while one is queued or running',
    scope: 'write',
    params: idParam,
    body: runStartSchema,
    responses: { 202: { description: 'the run, queued', schema: runSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('startRun', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        trigger: body.trigger ?? 'manual',
      });
      return { status: 202, body: runToRest(res.run) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/run',
    tag: 'Runs',
    summary: 'Start a run of each listed project (202)',
    description:
      'Each project starts or is listed under `refused` with the reason: not_found (no such project the key may see) or conflict (a run is queued or running).',
    scope: 'write',
    body: runsStartSchema,
    responses: { 202: { description: 'the runs started and the projects refused', schema: runsStartedSchema } },
    handler: async ({ auth, body }) => {
      const data: RunRecord[] = [];
      const refused: { projectId: string; code: string; error: string }[] = [];
      for (const projectId of [...new Set(body.project_ids)]) {
        try {
          await projects.get(auth, projectId);
          const res = await crawl.call('startRun', { workspaceId: auth.workspaceId, projectId, trigger: 'api' });
          data.push(runToRest(res.run));
        } catch (err) {
          if (!(err instanceof ApiError) || !['not_found', 'conflict'].includes(err.code)) throw err;
          refused.push({ projectId, code: err.code, error: err.message });
        }
      }
      return { status: 202, body: { data, refused } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/pages/recrawl',
    tag: 'Runs',
    summary: 'Re-crawl listed pages now, as a run of its own (202)',
    description:
      'Fetches exactly these URLs (of the project’s site), follows no link and reads no sitemap. Listed among the runs with trigger `recrawl`; its change record compares the listed pages with the last full run, and it never stands in for the site. 409 while a run is queued or running.',
    scope: 'write',
    params: idParam,
    body: z.strictObject({ urls: z.array(z.string().min(1).max(2048)).min(1).max(1000) }),
    responses: { 202: { description: 'the re-crawl run, queued', schema: runSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('recrawlRun', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        urls: body.urls,
      });
      return { status: 202, body: runToRest(res.run) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/dry-run',
    tag: 'Projects',
    summary: 'What scope patterns would do to the URLs the project already knows; nothing fetched',
    description:
      'Judges every URL of the last finished run and of a run going now by the saved scope and by the draft given (any of include_paths, exclude_paths, allow_subdomains, max_depth, sitemap_include, sitemap_exclude; unsaved). Answers the count and first URLs per verdict, and the URLs the draft would drop or add against the saved scope.',
    scope: 'read',
    params: idParam,
    body: scopeDraftSchema,
    responses: { 200: { description: 'the verdicts', schema: dryRunSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      // Judging every known URL of a large project is bounded work (GlobBudget), but it is more
      // than the default deadline's: cut off by it, a draft of costly globs answered 503 on a
      // loaded machine before its budget refused it with a 422.
      const res = await crawl.call(
        'dryRun',
        { workspaceId: auth.workspaceId, projectId: params.id, draft: toStruct(body) },
        60_000,
      );
      return { status: 200, body: dryRunToRest(res) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/sources/preview',
    tag: 'Projects',
    summary: 'Try sources before saving them: pattern counts, feeds read now, listed URLs checked',
    description:
      'Each pattern (include_paths, exclude_paths over the URLs the project knows; sitemap_include, sitemap_exclude over those its sitemaps listed) with its count and first URLs; each feed read now with its entry count (billed as a map, 1 credit a file); each url_list URL checked against the scope and robots.txt. Keys not given are the saved ones. Nothing is queued or saved.',
    scope: 'write',
    params: idParam,
    body: scopeDraftSchema
      .pick({ include_paths: true, exclude_paths: true, sitemap_include: true, sitemap_exclude: true })
      .extend({
        feeds: z.array(z.string().url().max(2048).superRefine(refuseGuardedUrl)).max(20).optional(),
        url_list: z.array(z.string().min(1).max(2048)).max(1000).optional(),
      })
      .strict()
      .meta({ id: 'SourcesDraft' }),
    responses: { 200: { description: 'the preview', schema: sourcesPreviewSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call(
        'previewSources',
        { workspaceId: auth.workspaceId, projectId: params.id, draft: toStruct(body) },
        60_000,
      );
      return { status: 200, body: sourcesPreviewToRest(res) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/sources',
    tag: 'Projects',
    summary: 'The project’s sources (seed, sitemaps, URL list, feeds, patterns) and what the last run found by each',
    scope: 'read',
    params: idParam,
    responses: { 200: { description: 'the sources', schema: sourcesSchema } },
    handler: async ({ auth, params }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('getSources', { workspaceId: auth.workspaceId, projectId: params.id });
      return { status: 200, body: sourcesToRest(res) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/runs/:run',
    tag: 'Runs',
    summary: 'One run: counts, credits, stop reason, engine breakdown and log',
    scope: 'read',
    params: runParams,
    responses: { 200: { description: 'the run', schema: runSchema } },
    handler: async ({ auth, params }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('getRun', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        runId: params.run,
      });
      return { status: 200, body: runToRest(res.run) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/runs/:run/cancel',
    tag: 'Runs',
    summary: 'Cancel a run: nothing more is fetched; pages in flight finish',
    scope: 'write',
    params: runParams,
    responses: { 200: { description: 'the run after the cancel', schema: runSchema } },
    handler: async ({ auth, params }) => {
      await projects.get(auth, params.id);
      const res = await crawl.call('cancelRun', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        runId: params.run,
      });
      return { status: 200, body: runToRest(res.run) };
    },
  }),
];
