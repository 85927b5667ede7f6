import type { Request } from 'express';
import {
  crawlEnvelopeSchema,
  crawlKeepSchema,
  crawlPageRowSchema,
  crawlRequestSchema,
  crawlV1,
  formatsSchema,
  SCRAPE_FORMATS,
  type CrawlEnvelope,
} from '@tidemark/contracts';
import { NotFoundError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId } from '@tidemark/telemetry';
import { z } from 'zod';
import { ROWS_DEADLINE_MS } from '../clients/service-clients.js';
import { errorEnvelopeSchema, idParam } from '../http/common.schemas.js';
import { nextLink } from '../http/pagination.js';
import type { HeaderSecrets } from '../services/header-secrets.js';
import { defineRoute } from '../http/route.js';
import { crawlEnvelopeToRest, crawlPageRowToRest } from '../mappers/job-envelope.mapper.js';

/** Bodies make a page heavy: with any, a page of rows holds at most this many. */
const MAX_ROWS_WITH_BODIES = 100;

/** `formats=` picks the bodies returned (none when empty); absent, the crawl's own formats. */
const formatsQuery = formatsSchema.describe(
  `comma-separated bodies to return (${SCRAPE_FORMATS.join(', ')}); empty for none`,
);

const keptSchema = z
  .object({ projectId: z.string(), name: z.string(), schedule: z.string(), retention: z.string() })
  .meta({ id: 'CrawlKept' });

const withNext = (req: Request, e: CrawlEnvelope, limit: number, publicBaseUrl?: string): CrawlEnvelope =>
  e.cursor === null ? e : { ...e, next: nextLink(req, e.cursor, limit, publicBaseUrl) };

export const crawlRoutes = (
  crawl: RpcClient<crawlV1.CrawlServiceClient>,
  headerSecrets: HeaderSecrets,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'post',
    path: '/crawl',
    tag: 'Crawl',
    summary: 'Crawl a site from a seed URL (202; poll GET /crawl/{id})',
    description:
      'Follows links (and sitemaps) within the seed’s host, by the scope, fetch and content rules given (the request’s short names are project config keys; `config` may carry any other). Answers 202 with the envelope; `webhookSecret` comes back once when a webhook is given. The crawl runs as a hidden project, discarded after a day unless kept (POST /crawl/{id}/keep).',
    scope: 'write',
    idempotent: true,
    secretFields: ['webhookSecret'],
    body: crawlRequestSchema,
    responses: { 202: { description: 'accepted: poll GET /crawl/{id}', schema: crawlEnvelopeSchema } },
    handler: async ({ auth, body, req }) => {
      // No destination exists yet (they come with exports): any id names nothing this key can see.
      if (body.destination !== undefined) throw new NotFoundError('destination');
      const res = await crawl.call('startCrawl', {
        workspaceId: auth.workspaceId,
        request: headerSecrets.sealRequest(req.body) as Record<string, unknown>,
        requestId: currentRequestId() ?? '',
      });
      const envelope = crawlEnvelopeToRest(res.envelope);
      return {
        status: 202,
        body: { ...envelope, ...(res.webhookSecret ? { webhookSecret: res.webhookSecret } : {}) },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/crawl/:id',
    tag: 'Crawl',
    summary: 'A crawl with a page of its pages, oldest first',
    description: `Pages in the order they were fetched. \`limit\` 1–1,000 (default 25); when bodies are returned a page holds at most ${MAX_ROWS_WITH_BODIES} rows, and the answer's \`limit\` says how many it was given (\`next\` goes on in pages of that size); it also holds no more than ~32 MB of bodies (at least one page), \`next\` going on from the first page left out. While the crawl runs, \`next\` is where the following pages will appear; it is null once the crawl has ended and every page was listed.`,
    scope: 'read',
    params: idParam,
    query: z.object({
      cursor: z
        .string()
        .max(100)
        .regex(/^[A-Za-z0-9_-]+$/, 'not a cursor this API gave out')
        .optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(25),
      formats: formatsQuery.optional(),
    }),
    responses: { 200: { description: 'the crawl', schema: crawlEnvelopeSchema } },
    handler: async ({ auth, params, query, req }) => {
      // Bodies make rows heavy: a larger limit is served in pages of MAX_ROWS_WITH_BODIES rather
      // than refused (a limit within the documented range is never an error).
      const withBodies = query.formats === undefined || query.formats.length > 0;
      const limit = withBodies ? Math.min(query.limit, MAX_ROWS_WITH_BODIES) : query.limit;
      const res = await crawl.call(
        'getCrawl',
        {
          workspaceId: auth.workspaceId,
          jobId: params.id,
          cursor: query.cursor ?? '',
          limit,
          formats: query.formats ?? [],
          formatsGiven: query.formats !== undefined,
        },
        ROWS_DEADLINE_MS,
      );
      const envelope = crawlEnvelopeToRest(res.envelope);
      return { status: 200, body: { ...withNext(req, envelope, limit, publicBaseUrl), limit } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/crawl/:id/page',
    tag: 'Crawl',
    summary: 'One page of a crawl in full',
    description: 'The URL matches under either scheme and with or without a trailing slash.',
    scope: 'read',
    params: idParam,
    query: z.object({ url: z.string().min(1).max(4096) }),
    responses: { 200: { description: 'the page with every body kept', schema: crawlPageRowSchema } },
    handler: async ({ auth, params, query }) => {
      const res = await crawl.call(
        'getCrawlPage',
        { workspaceId: auth.workspaceId, jobId: params.id, url: query.url },
        ROWS_DEADLINE_MS,
      );
      return { status: 200, body: crawlPageRowToRest(res.row) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/crawl/:id',
    tag: 'Crawl',
    summary: 'Stop a crawl: nothing more is fetched; pages in flight finish',
    scope: 'write',
    params: idParam,
    responses: { 200: { description: 'the crawl, cancelled (or as it ended)', schema: crawlEnvelopeSchema } },
    handler: async ({ auth, params }) => {
      const res = await crawl.call('cancelCrawl', { workspaceId: auth.workspaceId, jobId: params.id });
      return { status: 200, body: crawlEnvelopeToRest(res.envelope) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/crawl/:id/keep',
    tag: 'Crawl',
    summary: 'Keep a crawl as a standing project, its run in place',
    scope: 'write',
    params: idParam,
    body: crawlKeepSchema,
    responses: {
      200: { description: 'the project it became', schema: keptSchema },
      404: { description: 'no such crawl (or it was discarded)', schema: errorEnvelopeSchema },
    },
    handler: async ({ auth, params, body }) => {
      const res = await crawl.call('keepCrawl', {
        workspaceId: auth.workspaceId,
        jobId: params.id,
        name: body.name,
        schedule: body.schedule,
        retention: body.retention,
      });
      return { status: 200, body: res };
    },
  }),
];
