import { diffV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { idParam } from '../http/common.schemas.js';
import { defineRoute } from '../http/route.js';
import type { ProjectService } from '../services/project.service.js';

const runQuery = z.object({
  run_id: z.string().min(1).max(100).optional().describe('default: the latest finished run'),
});
const pageQuery = runQuery.extend({ url: z.string().min(1).max(4096).describe('the page (as the run stored it)') });

const changeRecordSchema = z
  .object({
    id: z.string(),
    runId: z.string(),
    baseline: z.string().nullable().describe('the run compared against; null for a first run'),
    counts: z.record(z.string(), z.number()),
    coverage: z
      .object({ verdict: z.boolean(), read: z.number(), expected: z.number(), share: z.number() })
      .passthrough()
      .describe('verdict false: the run read too little of the site to call removals'),
    templateChanges: z.array(z.unknown()),
    digest: z.unknown().nullable(),
    entries: z.array(
      z
        .object({ id: z.string(), url: z.string(), kind: z.string(), reviewed: z.boolean() })
        .passthrough()
        .describe('wordsAdded, wordsRemoved, section, volatile, volatileBlocks, fields, selectorBreaks, reason'),
    ),
    createdAt: z.string(),
  })
  .meta({ id: 'ChangeRecord' });

const json = z.object({}).passthrough();

/** Change records: the gateway checks the key may see the project; the diff service owns them. */
export const changeRoutes = (diff: RpcClient<diffV1.DiffServiceClient>, projects: ProjectService) => [
  defineRoute({
    method: 'get',
    path: '/projects/:id/changes',
    tag: 'Changes',
    summary: 'The change record of a run against the run before it',
    description:
      'Counts, coverage (is it a verdict), the baseline and one entry per page that did not stay the same (pages that did are counted). 404 while the run is not compared yet.',
    scope: 'read',
    params: idParam,
    query: runQuery,
    responses: { 200: { description: 'the change record', schema: changeRecordSchema } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('getChanges', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: JSON.parse(res.json) as unknown };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/changes/:change/review',
    tag: 'Changes',
    summary: 'Mark an entry of a change record reviewed (or not)',
    scope: 'write',
    params: z.object({ id: z.string().min(1).max(100), change: z.string().min(1).max(100) }),
    body: z.strictObject({ reviewed: z.boolean() }),
    responses: { 200: { description: 'the entry', schema: z.object({ id: z.string(), reviewed: z.boolean() }) } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('reviewEntry', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        entryId: params.change,
        reviewed: body.reviewed,
      });
      return { status: 200, body: JSON.parse(res.json) as unknown };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/changes/page',
    tag: 'Changes',
    summary: 'Word-level content diff of one page against the run before',
    scope: 'read',
    params: idParam,
    query: pageQuery,
    responses: { 200: { description: 'hunks with words added and removed, by section', schema: json } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('pageDiff', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: query.url,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: JSON.parse(res.json) as unknown };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/changes/markup',
    tag: 'Changes',
    summary: 'Markup comparison (normalized DOM diff) of one page against the run before',
    description: 'Needs the page’s html stored in both runs (formats cleanHtml, or STORE_HTML always); 409 otherwise.',
    scope: 'read',
    params: idParam,
    query: pageQuery,
    responses: { 200: { description: 'changes with paths, kinds, before and after', schema: json } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('markupDiff', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: query.url,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: JSON.parse(res.json) as unknown };
    },
  }),
];
