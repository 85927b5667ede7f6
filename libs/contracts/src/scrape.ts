import { z } from 'zod';
import { refuseGuardedUrl } from './outbound-url.js';
import { configInputSchema } from './project-config.js';
import { PAGE_ERROR_CODES, VERDICTS } from './vocabulary.js';

export const SCRAPE_FORMATS = ['markdown', 'text', 'cleanHtml', 'rawHtml', 'links', 'screenshot'] as const;
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];
export const MAX_BATCH_URLS = 500;

/**
 * Longest URL kept (the sitemaps protocol's bound, and what browsers and CDNs reliably carry).
 * Longer ones cannot be indexed: PostgreSQL refuses a btree entry over a third of a page.
 */
export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL, as every request field naming a page takes it. A page URL is judged
 * by the fetch guard when it is fetched: a refused one becomes its page row's NETWORK error at no
 * cost, so one bad URL does not refuse a whole batch.
 */
export const httpUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL');

/**
 * An http(s) URL Tidemark posts to or fetches later (a job webhook): also judged by the fetch
 * guard when the request is validated, so a private or special address is a 422 naming the field.
 */
export const outboundUrl = httpUrl.superRefine(refuseGuardedUrl);

/** `formats` is a comma-separated string (the spec); each name is checked. */
export const formatsSchema = z
  .string()
  .max(200)
  .transform((raw, ctx) => {
    const names = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = names.filter((n) => !(SCRAPE_FORMATS as readonly string[]).includes(n));
    if (bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown format ${bad.map((b) => `"${b}"`).join(', ')}; use ${SCRAPE_FORMATS.join(', ')}`,
      });
      return z.NEVER;
    }
    return [...new Set(names)] as ScrapeFormat[];
  })
  .describe(`comma-separated: ${SCRAPE_FORMATS.join(', ')}`);

/** POST /v1/scrape, as the gateway validates it and the scrape service reads it. */
export const scrapeRequestSchema = z
  .strictObject({
    url: httpUrl.optional().describe('one URL: answered in this response (200) unless the timeout passes (202)'),
    urls: z.array(httpUrl).min(1).max(MAX_BATCH_URLS).optional().describe('a batch: always 202, poll GET /scrape/{id}'),
    formats: formatsSchema.optional(),
    timeout: z.number().int().min(1).max(120).default(60).describe('seconds to wait for one URL'),
    config: configInputSchema.optional(),
    scrapeOptions: z
      .strictObject({
        onlyMainContent: z.boolean().optional(),
        formats: z.array(z.enum(SCRAPE_FORMATS)).max(6).optional(),
      })
      .optional(),
    maxCredits: z.number().int().min(1).max(1000).optional().describe('what one page may cost at most'),
    destination: z.string().min(1).max(100).optional(),
    webhook_url: outboundUrl
      .optional()
      .describe('batch only: receives batch.finished, signed with a secret returned once'),
  })
  .superRefine((r, ctx) => {
    if ((r.url === undefined) === (r.urls === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'send either url or urls' });
    }
    if (r.webhook_url !== undefined && r.urls === undefined) {
      ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'webhook_url is for batches (urls)' });
    }
  });
export type ScrapeRequest = z.output<typeof scrapeRequestSchema>;

const verdictEnum = z.enum(Object.keys(VERDICTS) as [keyof typeof VERDICTS, ...(keyof typeof VERDICTS)[]]);
const errorCodeEnum = z.enum(
  Object.keys(PAGE_ERROR_CODES) as [keyof typeof PAGE_ERROR_CODES, ...(keyof typeof PAGE_ERROR_CODES)[]],
);

/** One page row of a scrape job (spec: Page row). Bodies appear per the requested formats. */
export const pageRowSchema = z
  .object({
    url: z.string(),
    /** queued, running, done, error (nothing answered), cancelled. */
    status: z.enum(['queued', 'running', 'done', 'error', 'cancelled']),
    httpStatus: z.number().int().nullable(),
    verdict: verdictEnum.nullable(),
    errorCode: errorCodeEnum.nullable(),
    shape: z.enum(['listing', 'table', 'form', 'empty']).nullable(),
    warnings: z.array(z.string()),
    signals: z.array(z.string()),
    method: z.string().nullable(),
    tier: z.string().nullable(),
    credits: z.number().int(),
    billedAs: z.string().nullable(),
    climbedTo: z.string().nullable(),
    words: z.number().int(),
    language: z.string().nullable(),
    markdown: z.string().optional(),
    text: z.string().optional(),
    cleanHtml: z.string().optional(),
    html: z.string().optional(),
    links: z.array(z.string()).optional(),
    fields: z.record(z.string(), z.unknown()).optional(),
    screenshot: z
      .string()
      .optional()
      .describe('data:image/jpeg;base64,… (or image/png, as config screenshot.format asks)'),
    head: z.record(z.string(), z.unknown()).nullable(),
    reason: z.string().nullable(),
    widget: z.string().nullable(),
    solved: z.string().nullable(),
    exitBytes: z.number().int(),
    finalUrl: z.string().nullable(),
    retryAfter: z.number().int().optional(),
    crawledAt: z.string().nullable(),
    attempts: z
      .array(
        z.object({
          rung: z.string(),
          httpStatus: z.number().int().nullable(),
          verdict: z.string().nullable(),
          errorCode: z.string().nullable(),
          signals: z.array(z.string()),
          ms: z.number().int(),
          error: z.string().optional(),
        }),
      )
      .optional()
      .describe('every rung tried, in order (playground evidence)'),
  })
  .meta({ id: 'PageRow' });
export type PageRow = z.infer<typeof pageRowSchema>;

export const JOB_STATUSES = ['queued', 'running', 'done', 'error', 'cancelled'] as const;

/** The job envelope of every asynchronous verb (spec: Job envelope). */
export const jobEnvelopeSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    status: z.enum(JOB_STATUSES),
    progress: z.object({ done: z.number().int(), total: z.number().int(), queued: z.number().int() }),
    creditsUsed: z.number().int(),
    counts: z.record(z.string(), z.number().int()),
    data: z.array(pageRowSchema),
    next: z.string().nullable(),
    cursor: z.string().nullable(),
    stop: z.string().nullable(),
    request_id: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'JobEnvelope' });
export type JobEnvelope = z.infer<typeof jobEnvelopeSchema>;
