import type { Request } from 'express';
import { httpUrl, jobEnvelopeSchema, mapTotals, mapV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId } from '@tidemark/telemetry';
import { z } from 'zod';
import { idParam } from '../http/common.schemas.js';
import { nextLink } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';

/** POST /v1/map (spec: POST /map). */
export const mapRequestSchema = z
  .strictObject({
    url: httpUrl.describe("the site: its origin's robots.txt, sitemaps and feeds are read"),
    search: z.string().min(1).max(200).optional().describe('case-insensitive substring a URL must contain'),
    limit: z.number().int().min(1).max(50_000).default(5_000).describe('most URLs in the map'),
    sitemapMode: z
      .enum(['auto', 'only', 'skip'])
      .default('auto')
      .describe(
        "auto: the sitemaps robots.txt declares (else /sitemap.xml) and the feeds the home page links; only: sitemaps alone; skip: no sitemaps, the home page's feeds alone",
      ),
    timeout: z.number().int().min(1).max(60).default(10).describe('seconds to wait for the map'),
  })
  .meta({ id: 'MapRequest' });

export const mapRowSchema = z
  .object({
    url: z.string(),
    lastmod: z.string().nullable().describe('as the file gave it (a feed item: ISO 8601)'),
    changefreq: z.string().nullable(),
    source: z.enum(['sitemap', 'feed']).describe('the kind of file that listed it'),
    file: z.string().describe('the sitemap or feed file that listed it'),
    section: z.string().describe('the first path segment ("/blog"), "/" for the root'),
  })
  .meta({ id: 'MapRow' });

const robotsSchema = z
  .object({
    url: z.string(),
    status: z.number().int().nullable().describe('HTTP status after redirects; null when unreachable'),
    found: z.boolean().describe('a robots.txt was read (2xx)'),
    sitemaps: z.array(z.string()).describe('its Sitemap lines'),
    rules: z
      .enum(['parsed', 'allow_all', 'disallow_all'])
      .describe('allow_all: 4xx, no rules; disallow_all: 5xx, 429 or unreachable (RFC 9309)'),
    crawlDelay: z.number().nullable(),
  })
  .meta({ id: 'MapRobots' });

export const mapEnvelopeSchema = jobEnvelopeSchema
  .extend({
    data: z.array(mapRowSchema),
    totals: mapTotals.describe(
      'files read (each 1 credit), URLs in the map, sitemap indexes among the files, listed URLs robots.txt disallows (counted, not listed)',
    ),
    robots: robotsSchema.nullable().describe('null until the map has read it'),
    method: z
      .enum(['robots', 'sitemap.xml', 'feeds', 'none'])
      .nullable()
      .describe('how the sitemaps were found; null until the map ends'),
    errors: z
      .array(z.object({ file: z.string(), reason: z.string() }))
      .describe('files that could not be read (or not to the end), and why; the map goes on without them'),
  })
  .meta({ id: 'MapJob' });
type MapEnvelope = z.infer<typeof mapEnvelopeSchema>;

/** Row cursors are positions in the map, opaque to callers like every other cursor. */
const rowCursor = z
  .string()
  .max(40)
  .transform((c, ctx) => {
    const m = /^maprow:(\d{1,7})$/.exec(Buffer.from(c, 'base64url').toString());
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API gave out' });
      return z.NEVER;
    }
    return Number(m[1]);
  });

const withNext = (req: Request, envelope: MapEnvelope, limit: number, publicBaseUrl?: string): MapEnvelope => {
  if (envelope.cursor === null) return envelope;
  const cursor = Buffer.from(`maprow:${envelope.cursor}`).toString('base64url');
  return { ...envelope, cursor, next: nextLink(req, cursor, limit, publicBaseUrl) };
};

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
          sitemapMode: body.sitemapMode,
          waitMs,
          requestId: currentRequestId() ?? '',
        },
        waitMs + 15_000,
      );
      const envelope = JSON.parse(res.envelopeJson) as MapEnvelope;
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
      cursor: rowCursor.optional().describe('from the `cursor` of the previous page'),
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
        body: withNext(req, JSON.parse(res.envelopeJson) as MapEnvelope, query.limit, publicBaseUrl),
      };
    },
  }),
];
