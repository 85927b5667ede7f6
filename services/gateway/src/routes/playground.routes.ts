import { configInputSchema, jobEnvelopeSchema, pageRowSchema, scrapeV1, type JobEnvelope } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { currentRequestId } from '@tidemark/telemetry';
import { z } from 'zod';
import { ROWS_DEADLINE_MS } from '../clients/service-clients.js';
import { idParam } from '../http/common.schemas.js';
import { publicOrigin } from '../http/pagination.js';
import type { HeaderSecrets } from '../services/header-secrets.js';
import { defineRoute } from '../http/route.js';
import { jobEnvelopeToRest } from '../mappers/job-envelope.mapper.js';

const PLAYGROUND_WAIT_MS = 60_000;

const playgroundSchema = z
  .object({
    id: z.string(),
    status: jobEnvelopeSchema.shape.status,
    creditsUsed: z.number().int(),
    result: pageRowSchema.nullable().describe('the page row with every body, once the job is done'),
    evidence: z
      .object({
        attempts: pageRowSchema.shape.attempts.describe('each rung tried: status, verdict, signals, time'),
        verdict: z.string().nullable(),
        errorCode: z.string().nullable(),
        signals: z.array(z.string()),
        reason: z.string().nullable(),
        climbedTo: z.string().nullable(),
      })
      .nullable(),
    screenshot: z.string().nullable().describe('URL of the screenshot, when one was taken'),
  })
  .meta({ id: 'PlaygroundResult' });

const present = (e: JobEnvelope, screenshotUrl: string) => {
  const row = e.data[0];
  const done = row && !['queued', 'running'].includes(row.status);
  return {
    id: e.id,
    status: e.status,
    creditsUsed: e.creditsUsed,
    result: done ? { ...row, screenshot: undefined } : null,
    evidence: done
      ? {
          attempts: row.attempts ?? [],
          verdict: row.verdict,
          errorCode: row.errorCode,
          signals: row.signals,
          reason: row.reason,
          climbedTo: row.climbedTo,
        }
      : null,
    screenshot: done && row.screenshot ? screenshotUrl : null,
  };
};

/**
 * The playground: one URL read with everything kept (every body, a screenshot when the browser
 * ran) and the evidence of how the verdict was reached. Billed like a scrape.
 */
export const playgroundRoutes = (
  scrape: RpcClient<scrapeV1.ScrapeServiceClient>,
  headerSecrets: HeaderSecrets,
  publicBaseUrl?: string,
) => [
  defineRoute({
    method: 'post',
    path: '/playground/extract',
    tag: 'Scrape',
    summary: 'Read one URL with every body kept and the evidence of its verdict',
    scope: 'write',
    idempotent: true,
    body: z.strictObject({
      url: z
        .string()
        .url()
        .max(4096)
        .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL'),
      allow_browser: z.boolean().default(true).describe('may climb to the browser rung'),
      use_proxy: z.boolean().default(false).describe('may climb to the browser through a residential exit'),
      config: configInputSchema.optional(),
    }),
    responses: {
      202: {
        description: 'started: read GET /playground/{id}',
        schema: z.object({ id: z.string(), status: z.string() }),
      },
    },
    handler: async ({ auth, body, req }) => {
      const maxTier = !body.allow_browser ? 'http' : body.use_proxy ? 'browser+exit' : 'browser';
      const request = {
        url: body.url,
        formats: 'markdown,text,cleanHtml,rawHtml,links,screenshot',
        config: { ...((req.body as { config?: object }).config ?? {}), max_tier: maxTier },
      };
      const res = await scrape.call(
        'scrapeNow',
        {
          workspaceId: auth.workspaceId,
          url: body.url,
          request: headerSecrets.sealRequest(request),
          waitMs: 0,
          requestId: currentRequestId() ?? '',
          kind: 'playground',
        },
        15_000,
      );
      return { status: 202, body: { id: res.jobId, status: jobEnvelopeToRest(res.envelope).status } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/playground/:id',
    tag: 'Scrape',
    summary: 'The playground result with its evidence (waits up to a minute for it)',
    scope: 'read',
    params: idParam,
    query: z.object({
      wait: z.coerce.number().int().min(0).max(60).default(0).describe('seconds to wait for the result'),
    }),
    responses: { 200: { description: 'the result, or its status while it runs', schema: playgroundSchema } },
    handler: async ({ auth, params, query, req }) => {
      const until = Date.now() + Math.min(query.wait * 1000, PLAYGROUND_WAIT_MS);
      for (;;) {
        const res = await scrape.call(
          'getJob',
          { workspaceId: auth.workspaceId, jobId: params.id, after: 0, limit: 1, kind: 'playground' },
          ROWS_DEADLINE_MS,
        );
        const envelope = jobEnvelopeToRest(res.envelope);
        const screenshotUrl = `${publicOrigin(req, publicBaseUrl)}${req.baseUrl}/playground/${params.id}/screenshot`;
        if (!['queued', 'running'].includes(envelope.status) || Date.now() >= until) {
          return { status: 200, body: present(envelope, screenshotUrl) };
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/playground/:id/screenshot',
    tag: 'Scrape',
    summary: 'The JPEG the browser took',
    scope: 'read',
    params: idParam,
    responses: { 200: { description: 'image/jpeg, or image/png when config screenshot.format is png' } },
    handler: async ({ auth, params }) => {
      const res = await scrape.call('getScreenshot', {
        workspaceId: auth.workspaceId,
        jobId: params.id,
        position: 0,
        kind: 'playground',
      });
      const image = Buffer.from(res.jpeg);
      // JPEG, or PNG when the screenshot was asked for so (a PNG starts with byte 0x89).
      return { status: 200, raw: image, headers: { 'Content-Type': image[0] === 0x89 ? 'image/png' : 'image/jpeg' } };
    },
  }),
];
