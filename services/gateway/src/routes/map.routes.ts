import { httpUrl, SITEMAP_MODES, sitemapModeEnum, type mapV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId } from '@tidemark/telemetry';
import { z } from 'zod';
import { idParam } from '../http/common.schemas.js';
import { nextLink } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import { mapEnvelopeSchema, mapJobToRest, mapRowCursor } from '../mappers/map-job.mapper.js';

/** POST /v1/map (spec: POST /map). */
export const mapRequestSchema = z
  .strictObject({
    url: httpUrl.describe("the site: its origin's robots.txt, sitemaps and feeds are read"),
    search: z.string().min(1).max(200).optional().describe('case-insensitive substring a URL must contain'),
    limit: z.number().int().min(1).max(50_000).default(5_000).describe('most URLs in the map'),
    sitemapMode: z
      .enum(SITEMAP_MODES)
      .default('auto')
      .describe(
        "auto: the sitemaps robots.txt declares (else /sitemap.xml) and the feeds the home page links; only: sitemaps alone; skip: no sitemaps, the home page's feeds alone",
      ),
    timeout: z.number().int().min(1).max(60).default(10).describe('seconds to wait for the map'),
  })
  .meta({ id: 'MapRequest' });

export const mapRoutes = (map: RpcClient<mapV1.MapServiceClient>, publicBaseUrl?: string) => [
  defineRoute({
    method: 'post',
    path: '/map',
    tag: 'Map',
    summary: 'The URLs a site declares in its sitemaps and feeds',
    description:
      'Reads robots.txt, the sitemap tree (indexes at any depth, gzip) and feeds, and waits up to `timeout` seconds: 200 with every row (up to `limit`) when the map ends in time, else 202 with the id to poll (GET /map/{id}). Each sitemap or feed file read costs 1 credit; when credits run out the map ends with what it has (`stop`: credits_exhausted).',
    scope: 'write',
    idempotent: true,
    body: mapRequestSchema,
    responses: {
      200: { description: 'the map, resolved within the timeout', schema: mapEnvelopeSchema },
      202: { description: 'accepted: poll GET /map/{id}', schema: mapEnvelopeSchema },
    },
    handler: async ({ auth, body }) => {
      const waitMs = body.timeout * 1000;
      const res = await map.call(
        'mapNow',
        {
          workspaceId: auth.workspaceId,
          url: body.url,
          search: body.search ?? '',
          limit: body.limit,
          sitemapMode: sitemapModeEnum.toProto(body.sitemapMode),
          waitMs,
          requestId: currentRequestId() ?? '',
        },
        waitMs + 15_000,
      );
      const envelope = mapJobToRest(res.job);
      return {
        status: res.done ? 200 : 202,
        body: envelope,
        headers: { 'X-Service-Credits': String(envelope.creditsUsed) },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/map/:id',
    tag: 'Map',
    summary: 'One map with a page of its rows, in the order the sitemap tree gave them',
    description: 'While the map runs, rows appear as files are read; `next` is the following page once there is one.',
    scope: 'read',
    params: idParam,
    query: z.object({
      cursor: mapRowCursor.optional().describe('from the `cursor` of the previous page'),
      limit: z.coerce.number().int().min(1).max(1000).default(1000).describe('rows per page, 1 to 1,000'),
    }),
    responses: { 200: { description: 'the map', schema: mapEnvelopeSchema } },
    handler: async ({ auth, params, query, req }) => {
      const res = await map.call('getMap', {
        workspaceId: auth.workspaceId,
        jobId: params.id,
        after: query.cursor ?? 0,
        limit: query.limit,
      });
      return {
        status: 200,
        body: mapJobToRest(res.job, (cursor) => nextLink(req, cursor, query.limit, publicBaseUrl)),
      };
    },
  }),
];
