import type { Request } from 'express';
import { jobEnvelopeSchema, scrapeRequestSchema, scrapeV1, type JobEnvelope } from '@tidemark/contracts';
import { NotFoundError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId } from '@tidemark/telemetry';
import { z } from 'zod';
import { ROWS_DEADLINE_MS } from '../clients/service-clients.js';
import { errorEnvelopeSchema, idParam, listOf } from '../http/common.schemas.js';
import { cursorSchema, nextLink, toPage } from '../http/pagination.js';
import type { HeaderSecrets } from '../services/header-secrets.js';
import { defineRoute } from '../http/route.js';
import { jobEnvelopeToRest } from '../mappers/job-envelope.mapper.js';

const createdSchema = jobEnvelopeSchema
  .extend({ webhookSecret: z.string().optional().describe("signs this batch's webhook messages; in this answer only") })
  .meta({ id: 'ScrapeJobCreated' });

/** Row cursors are positions in the job, opaque to callers like every other cursor. */
const rowCursor = z
  .string()
  .max(40)
  .transform((c, ctx) => {
    const m = /^row:(\d{1,7})$/.exec(Buffer.from(c, 'base64url').toString());
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API gave out' });
      return z.NEVER;
    }
    return Number(m[1]);
  });

const withNext = (req: Request, envelope: JobEnvelope, limit: number, publicBaseUrl?: string): JobEnvelope => {
  if (envelope.cursor === null) return envelope;
  const cursor = Buffer.from(`row:${envelope.cursor}`).toString('base64url');
  return { ...envelope, cursor, next: nextLink(req, cursor, limit, publicBaseUrl) };
};

const creditsHeader = (e: JobEnvelope) => ({ 'X-Service-Credits': String(e.creditsUsed) });

export const scrapeRoutes = (
  scrape: RpcClient<scrapeV1.ScrapeServiceClient>,
  headerSecrets: HeaderSecrets,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'post',
    path: '/scrape',
    tag: 'Scrape',
    summary: 'Scrape one URL (answered now) or a batch (always 202)',
    description:
      'One url waits up to `timeout` seconds and answers 200 with the job envelope holding one page row (header X-Service-Credits); past the timeout 202 with the id to poll while the fetch goes on. A list of urls always answers 202.',
    scope: 'write',
    idempotent: true,
    secretFields: ['webhookSecret'],
    body: scrapeRequestSchema,
    responses: {
      200: { description: 'the page, read within the timeout', schema: jobEnvelopeSchema },
      202: { description: 'accepted: poll GET /scrape/{id}', schema: createdSchema },
    },
    handler: async ({ auth, body, req }) => {
      // No destination exists yet (they come with exports): any id names nothing this key can see.
      if (body.destination !== undefined) throw new NotFoundError('destination');
      // The request as sent (its header values sealed): the scrape service parses it with the same schema.
      const request = headerSecrets.sealRequest(req.body) as Record<string, unknown>;
      const requestId = currentRequestId() ?? '';
      if (body.url !== undefined) {
        const waitMs = body.timeout * 1000;
        const res = await scrape.call(
          'scrapeNow',
          { workspaceId: auth.workspaceId, url: body.url, request, waitMs, requestId, kind: 'scrape' },
          waitMs + 15_000,
        );
        const envelope = jobEnvelopeToRest(res.envelope);
        return { status: res.done ? 200 : 202, body: envelope, headers: creditsHeader(envelope) };
      }
      const res = await scrape.call('startBatch', {
        workspaceId: auth.workspaceId,
        urls: body.urls!,
        request,
        requestId,
      });
      const envelope = jobEnvelopeToRest(res.envelope);
      return {
        status: 202,
        body: { ...envelope, ...(res.webhookSecret ? { webhookSecret: res.webhookSecret } : {}) },
        headers: creditsHeader(envelope),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/scrape',
    tag: 'Scrape',
    summary: 'Recent scrape jobs, newest first (without their rows)',
    scope: 'read',
    query: z.object({
      cursor: cursorSchema.optional(),
      limit: z.coerce.number().int().min(1).max(100).default(25),
    }),
    responses: { 200: { description: 'jobs', schema: listOf(jobEnvelopeSchema) } },
    handler: async ({ auth, query, req }) => {
      const res = await scrape.call('listJobs', {
        workspaceId: auth.workspaceId,
        before: query.cursor ?? '',
        limit: query.limit + 1,
      });
      const jobs = res.jobs.map(jobEnvelopeToRest);
      return { status: 200, body: toPage(req, jobs, query.limit, (job) => job, publicBaseUrl) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/scrape/:id',
    tag: 'Scrape',
    summary: 'One scrape job with a row per URL, in the order asked',
    description:
      'Rows from `cursor` on: up to `limit` (1–1,000, default 100), and no more than ~32 MB of bodies in one answer (at least one row): a page of rows cut by size has `next`, going on from the first row left out.',
    scope: 'read',
    params: idParam,
    query: z.object({
      cursor: rowCursor.optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
    responses: { 200: { description: 'the job', schema: jobEnvelopeSchema } },
    handler: async ({ auth, params, query, req }) => {
      const res = await scrape.call(
        'getJob',
        {
          workspaceId: auth.workspaceId,
          jobId: params.id,
          after: query.cursor ?? 0,
          limit: query.limit,
          kind: 'scrape',
        },
        ROWS_DEADLINE_MS,
      );
      return {
        status: 200,
        body: withNext(req, jobEnvelopeToRest(res.envelope), query.limit, publicBaseUrl),
      };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/scrape/:id',
    tag: 'Scrape',
    summary: 'Cancel a scrape job: URLs not yet fetched are not fetched',
    scope: 'write',
    params: idParam,
    responses: {
      200: { description: 'the job, cancelled', schema: jobEnvelopeSchema },
      409: { description: 'the job had already ended (conflict)', schema: errorEnvelopeSchema },
    },
    handler: async ({ auth, params }) => {
      const res = await scrape.call('cancelJob', { workspaceId: auth.workspaceId, jobId: params.id });
      return { status: 200, body: jobEnvelopeToRest(res.envelope) };
    },
  }),
];
