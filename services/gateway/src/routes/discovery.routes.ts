import type { mapV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { z } from 'zod';
import { idParam } from '../http/common.schemas.js';
import { nextLink } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import {
  discoveryEntriesSchema,
  discoveryEntriesToRest,
  discoverySchema,
  discoveryStartSchema,
  discoveryStartToRest,
  discoveryToRest,
} from '../mappers/discovery.mapper.js';
import type { ProjectService } from '../services/project.service.js';

/** A project's discovery snapshots: the gateway checks the key may see the project; map owns them. */
export const discoveryRoutes = (
  map: RpcClient<mapV1.MapServiceClient>,
  projects: ProjectService,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'get',
    path: '/projects/:id/discovery',
    tag: 'Discovery',
    summary: 'The stored sitemap tree and its diff against the snapshot before',
    description:
      '`discovery` is null until the first snapshot has run: robots, totals, each sitemap file with its section, URL count and lastmod range, feeds, and `diff` (files added and removed; URLs added, removed and with a new lastmod). `job` is the snapshot running now, or null.',
    scope: 'read',
    params: idParam,
    responses: {
      200: {
        description: 'the discovery',
        schema: discoverySchema,
      },
    },
    handler: async ({ auth, params }) => {
      await projects.get(auth, params.id);
      const res = await map.call('getDiscovery', { workspaceId: auth.workspaceId, projectId: params.id });
      return { status: 200, body: discoveryToRest(res) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/discovery',
    tag: 'Discovery',
    summary: 'Take a new snapshot of the project’s sitemaps (202; billed as a map, 1 credit per file)',
    description: '409 while a snapshot of the project is running. sitemap.* events tell what moved when it ends.',
    scope: 'write',
    params: idParam,
    responses: { 202: { description: 'the snapshot’s map job', schema: discoveryStartSchema } },
    handler: async ({ auth, params }) => {
      await projects.get(auth, params.id);
      const res = await map.call('startDiscovery', { workspaceId: auth.workspaceId, projectId: params.id });
      return { status: 202, body: discoveryStartToRest(res) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/discovery/entries',
    tag: 'Discovery',
    summary: 'URLs one sitemap file or path prefix declares, paged, with the path prefixes under it',
    scope: 'read',
    params: idParam,
    query: z.object({
      file: z.string().max(4096).optional().describe('a sitemap or feed file of the snapshot'),
      prefix: z
        .string()
        .max(2048)
        .regex(/^\//, 'a path starting with /')
        .optional()
        .describe('a path prefix, e.g. /blog/2025'),
      snapshot_id: z.string().max(100).optional().describe('default: the latest snapshot'),
      q: z.string().max(500).optional().describe('text the URL contains (case-insensitive)'),
      cursor: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(1000).default(50),
    }),
    responses: {
      200: {
        description: 'the entries',
        schema: discoveryEntriesSchema,
      },
    },
    handler: async ({ auth, params, query, req }) => {
      await projects.get(auth, params.id);
      const res = await map.call('discoveryEntries', {
        workspaceId: auth.workspaceId,
        projectId: params.id,
        file: query.file ?? '',
        prefix: query.prefix ?? '',
        snapshotId: query.snapshot_id ?? '',
        q: query.q ?? '',
        cursor: query.cursor,
        limit: query.limit,
      });
      return {
        status: 200,
        body: discoveryEntriesToRest(res, (cursor) => nextLink(req, cursor, query.limit, publicBaseUrl)),
      };
    },
  }),
];
