import { configInputSchema, refuseGuardedUrl, VERDICTS } from '@tidemark/contracts';
import { z } from 'zod';
import { idParam, listOf } from '../http/common.schemas.js';
import { cursorSchema, toPage } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import type { ProjectService } from '../services/project.service.js';

const seed = z
  .string()
  .trim()
  .max(2048)
  .transform((value, ctx) => {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a URL' });
      return z.NEVER;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
      return z.NEVER;
    }
    u.hash = '';
    // Every run fetches it: the fetch guard judges it when saved.
    refuseGuardedUrl(u.toString(), ctx);
    return u;
  })
  .describe('starting URL (http or https)');

const schedule = z.enum(['manual', 'daily', 'weekly']).describe('when runs start');
const retention = z
  .string()
  .regex(/^([1-9]\d{0,3}d|forever)$/, 'a number of days such as "30d", or "forever"')
  .describe('how long run data is kept: "<days>d" or "forever"');
const name = z.string().trim().min(1).max(200);

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    seed: z.string(),
    host: z.string(),
    schedule,
    retention: z.string(),
    config: z
      .object({ version: z.number().int() })
      .passthrough()
      .describe('scope, fetch, content, output and advanced groups (GET /v1/meta lists every key)'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Project' });

export const projectRoutes = (projects: ProjectService, publicBaseUrl?: string) => [
  defineRoute({
    method: 'get',
    path: '/projects',
    tag: 'Projects',
    summary: 'Projects of the workspace the key may see, newest first',
    description:
      'limit 0 (the default) means the largest page, 1,000. v keeps projects that have pages with that verdict in a finished run.',
    scope: 'read',
    query: z.object({
      v: z
        .enum(Object.keys(VERDICTS) as [string, ...string[]])
        .optional()
        .describe('verdict filter'),
      limit: z.coerce.number().int().min(0).max(1000).default(0),
      cursor: cursorSchema.optional(),
    }),
    responses: { 200: { description: 'projects', schema: listOf(projectSchema) } },
    handler: async ({ auth, query, req }) => {
      const size = query.limit || 1000;
      const rows = await projects.list(auth, { take: size + 1, before: query.cursor, verdict: query.v });
      return { status: 200, body: toPage(req, rows, size, (p) => projects.present(auth, p), publicBaseUrl) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects',
    tag: 'Projects',
    summary: 'Create a project',
    scope: 'write',
    idempotent: true,
    body: z.strictObject({
      seed,
      name: name.optional(),
      schedule: schedule.default('manual'),
      retention: retention.default('90d'),
      config: configInputSchema.optional(),
    }),
    responses: { 201: { description: 'the project', schema: projectSchema } },
    handler: async ({ auth, body }) => ({
      status: 201,
      body: projects.present(auth, await projects.create(auth, body)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/projects/batch',
    tag: 'Projects',
    summary: 'Create one project per seed from a template',
    description:
      'Each project takes the template’s config, schedule and retention (its URL lists, feeds and path patterns excepted: they belong to the template’s site); `schedule` and `retention` given here win. Seeds that cannot become projects are listed under `refused` with the reason; the others are created.',
    scope: 'write',
    idempotent: true,
    body: z.strictObject({
      seeds: z.array(z.string().max(2048)).min(1).max(1000),
      template_project_id: z.string().min(1).max(100).optional(),
      schedule: schedule.optional(),
      retention: retention.optional(),
    }),
    responses: {
      201: {
        description: 'the projects created and the seeds refused',
        schema: z
          .object({
            data: z.array(projectSchema),
            refused: z.array(z.object({ seed: z.string(), reason: z.string() })),
          })
          .meta({ id: 'ProjectBatch' }),
      },
    },
    handler: async ({ auth, body }) => {
      const { created, refused } = await projects.createBatch(auth, body);
      return { status: 201, body: { data: created.map((p) => projects.present(auth, p)), refused } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/config/apply',
    tag: 'Projects',
    summary: 'Copy groups of this project’s saved config onto other projects',
    description:
      'groups: any of scope, fetch, content, output, advanced, or all. Site-bound keys (URL lists, feeds, path patterns) stay each target’s own. A target whose config already matches keeps its version; projects the key cannot see are listed under `refused`.',
    scope: 'write',
    params: idParam,
    body: z.strictObject({
      project_ids: z.array(z.string().min(1).max(100)).min(1).max(1000),
      groups: z.array(z.enum(['scope', 'fetch', 'content', 'output', 'advanced', 'all'])).min(1),
    }),
    responses: {
      200: {
        description: 'each target’s version after the copy',
        schema: z
          .object({
            applied: z.array(z.object({ projectId: z.string(), version: z.number().int(), changed: z.boolean() })),
            refused: z.array(z.object({ projectId: z.string(), reason: z.string() })),
          })
          .meta({ id: 'ConfigApplied' }),
      },
    },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: await projects.applyConfig(auth, params.id, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id',
    tag: 'Projects',
    summary: 'One project',
    scope: 'read',
    params: idParam,
    responses: { 200: { description: 'the project', schema: projectSchema } },
    handler: async ({ auth, params }) => ({
      status: 200,
      body: projects.present(auth, await projects.get(auth, params.id)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/projects/:id',
    tag: 'Projects',
    summary: 'Change a project; a partial config merges, and an identical config keeps its version',
    scope: 'write',
    params: idParam,
    body: z.strictObject({
      name: name.optional(),
      schedule: schedule.optional(),
      retention: retention.optional(),
      config: configInputSchema.optional(),
    }),
    responses: { 200: { description: 'the project after the change', schema: projectSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: projects.present(auth, await projects.update(auth, params.id, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/projects/:id',
    tag: 'Projects',
    summary: 'Delete a project with its runs and pages',
    scope: 'admin',
    params: idParam,
    responses: { 204: { description: 'deleted' } },
    handler: async ({ auth, params }) => {
      await projects.delete(auth, params.id);
      return { status: 204 };
    },
  }),
];
