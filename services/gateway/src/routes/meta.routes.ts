import {
  CONFIG_ALIASES,
  defaultConfig,
  describeConfig,
  DOCUMENT_PRICING,
  ENGINE_LADDER,
  MAP_CREDITS_PER_SITEMAP_FILE,
  PAGE_ERROR_CODES,
  PAGE_SHAPES,
  PLANS,
  VERDICTS,
  WELCOME_CREDITS,
} from '@tidemark/contracts';
import { ERROR_CODES } from '@tidemark/errors';
import { z } from 'zod';
import { defineRoute } from '../http/route.js';

// Static for the life of the process: built once, not per request.
const meta = {
  verdicts: VERDICTS,
  errorCodes: PAGE_ERROR_CODES,
  shapes: PAGE_SHAPES,
  engines: ENGINE_LADDER,
  ladder: {
    order: ENGINE_LADDER.map((r) => r.rung),
    rule: 'a page climbs to the next rung only when the verdict of the rung below says it was not read (app shell, block, captcha) and maxTier, maxCredits and the remaining credits allow; climbedTo records the highest rung tried; TIER_LIMIT and BUDGET_EXHAUSTED say why it stopped',
  },
  credits: {
    welcome: WELCOME_CREDITS,
    mapPerSitemapFile: MAP_CREDITS_PER_SITEMAP_FILE,
    documents: {
      ...DOCUMENT_PRICING,
      rule: `a URL answering a document (${DOCUMENT_PRICING.formats.join(', ')}) is read at the http rung and costs 1 credit per started ${DOCUMENT_PRICING.pagesPerCredit} pages (at least the http rung's price); a page is a PDF page or a slide, or ${DOCUMENT_PRICING.wordsPerPage} words of a format that flows (DOCX, ODT, RTF, XLSX); at most ${DOCUMENT_PRICING.maxPages} pages are read and priced; parse_documents false: the http rung's price`,
    },
  },
  config: { keys: describeConfig(), defaults: defaultConfig(), aliases: CONFIG_ALIASES },
  plans: PLANS,
  apiErrors: Object.fromEntries(
    Object.entries(ERROR_CODES).map(([code, v]) => [code, { status: v.http, retryable: v.retryable }]),
  ),
};

export const metaSchema = z
  .object({
    verdicts: z.record(z.string(), z.string()),
    errorCodes: z.record(z.string(), z.string()),
    shapes: z.array(z.string()),
    engines: z.array(z.object({ rung: z.string(), tier: z.string(), credits: z.number(), note: z.string() })),
    ladder: z.object({ order: z.array(z.string()), rule: z.string() }),
    credits: z.object({
      welcome: z.number(),
      mapPerSitemapFile: z.number(),
      documents: z.object({
        pagesPerCredit: z.number(),
        wordsPerPage: z.number(),
        maxPages: z.number(),
        formats: z.array(z.string()),
        rule: z.string(),
      }),
    }),
    config: z.object({
      keys: z.record(z.string(), z.unknown()),
      defaults: z.record(z.string(), z.unknown()),
      aliases: z.record(z.string(), z.string()),
    }),
    plans: z.record(z.string(), z.object({ rpm: z.number(), monthlyCredits: z.number(), subAccounts: z.number() })),
    apiErrors: z.record(z.string(), z.object({ status: z.number(), retryable: z.boolean() })),
  })
  .meta({ id: 'Meta' });

export const metaRoutes = () => [
  defineRoute({
    method: 'get',
    path: '/meta',
    tag: 'Workspace',
    summary: 'Verdict meanings, engine costs, config keys and defaults, the ladder',
    scope: 'read',
    responses: { 200: { description: 'the vocabulary of the API', schema: metaSchema } },
    handler: async () => ({ status: 200, body: meta }),
  }),
];
