import type { diffV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { errorEnvelopeSchema, idParam } from '../http/common.schemas.js';
import { defineRoute } from '../http/route.js';
import {
  changeRecordSchema,
  changeRecordToRest,
  changeReviewSchema,
  changeReviewToRest,
} from '../mappers/change-record.mapper.js';
import { markupDiffSchema, markupDiffToRest } from '../mappers/markup-diff.mapper.js';
import { pageDiffSchema, pageDiffToRest } from '../mappers/page-diff.mapper.js';
import type { ProjectService } from '../services/project.service.js';

const runQuery = z.object({
  run_id: z.string().min(1).max(100).optional().describe('default: the latest finished run'),
});
const pageQuery = runQuery.extend({ url: z.string().min(1).max(4096).describe('the page (as the run stored it)') });

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
      return { status: 200, body: changeRecordToRest(res.record) };
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
    responses: { 200: { description: 'the entry', schema: changeReviewSchema } },
    handler: async ({ auth, params, body }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('reviewEntry', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        entryId: params.change,
        reviewed: body.reviewed,
      });
      return { status: 200, body: changeReviewToRest(res) };
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
    responses: { 200: { description: 'hunks with words added and removed, by section', schema: pageDiffSchema } },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('pageDiff', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: query.url,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: pageDiffToRest(res.diff) };
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
    responses: {
      200: { description: 'changes with paths, kinds, before and after', schema: markupDiffSchema },
      409: { description: 'the page’s html is not stored in both runs (conflict)', schema: errorEnvelopeSchema },
    },
    handler: async ({ auth, params, query }) => {
      await projects.get(auth, params.id);
      const res = await diff.call('markupDiff', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        url: query.url,
        runId: query.run_id ?? '',
      });
      return { status: 200, body: markupDiffToRest(res.diff) };
    },
  }),
];
