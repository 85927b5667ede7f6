import { z } from 'zod';
import { CONFIG_ALIASES, CONFIG_KEYS, configInputSchema, type ConfigKey } from './project-config.js';
import { httpUrl, jobEnvelopeSchema, outboundUrl, pageRowSchema, SCRAPE_FORMATS } from './scrape.js';

export const CRAWL_WEBHOOK_EVENTS = ['crawl.started', 'crawl.page', 'crawl.completed', 'crawl.failed'] as const;

/**
 * POST /v1/crawl, as the gateway validates it and the crawl service reads it. The short names
 * (limit, maxDepth, …) are the project config's aliases: each lands on its config key, and the
 * same key given in `config` too must agree.
 */
export const crawlRequestSchema = z
  .strictObject({
    url: httpUrl.describe('the seed: where the crawl starts; its host is the crawl scope'),
    limit: CONFIG_KEYS.max_pages.schema.optional().describe('most pages fetched (default 1,000)'),
    maxDepth: CONFIG_KEYS.max_depth.schema
      .optional()
      .describe('link hops from the seed; sitemap and feed URLs are one hop; null = no limit'),
    includePaths: CONFIG_KEYS.include_paths.schema.optional().describe('globs a URL path must match (any of)'),
    excludePaths: CONFIG_KEYS.exclude_paths.schema.optional().describe('globs that rule a path out; they win'),
    useSitemap: CONFIG_KEYS.use_sitemap.schema.optional(),
    sitemapMode: CONFIG_KEYS.sitemap_mode.schema.optional(),
    crawlMode: CONFIG_KEYS.crawl_mode.schema.optional(),
    allowSubdomains: CONFIG_KEYS.allow_subdomains.schema.optional(),
    maxAge: CONFIG_KEYS.max_age.schema.optional().describe('milliseconds a stored copy stays fresh enough to serve'),
    maxTier: CONFIG_KEYS.max_tier.schema.optional(),
    delay: CONFIG_KEYS.delay.schema.optional().describe('seconds between two requests to one host'),
    concurrency: CONFIG_KEYS.concurrency.schema.optional().describe('requests in flight to one host'),
    respectRobots: CONFIG_KEYS.respect_robots.schema.optional(),
    scrapeOptions: z
      .strictObject({
        formats: z.array(z.enum(SCRAPE_FORMATS)).max(6).optional(),
        onlyMainContent: z.boolean().optional(),
      })
      .optional(),
    config: configInputSchema.optional(),
    webhook: z
      .strictObject({
        url: outboundUrl,
        events: z
          .array(z.enum(CRAWL_WEBHOOK_EVENTS))
          .max(CRAWL_WEBHOOK_EVENTS.length)
          .default([...CRAWL_WEBHOOK_EVENTS]),
        metadata: z.record(z.string().max(200), z.unknown()).default({}),
      })
      .optional()
      .describe('job webhook: its secret comes back once as webhookSecret'),
    destination: z.string().min(1).max(100).optional(),
  })
  .meta({ id: 'CrawlRequest' });
export type CrawlRequest = z.output<typeof crawlRequestSchema>;

/**
 * The crawl request's fields that are config keys: by alias (limit → max_pages, …) or by their
 * own name (delay, concurrency), each with the key it sets.
 */
export const CRAWL_CONFIG_FIELDS = Object.keys(crawlRequestSchema.shape).flatMap((field) => {
  const key = CONFIG_ALIASES[field] ?? (field in CONFIG_KEYS ? (field as ConfigKey) : undefined);
  return key ? [{ field: field as keyof CrawlRequest, key }] : [];
});

export const crawlPageRowSchema = pageRowSchema
  .extend({
    foundVia: z.enum(['seed', 'link', 'sitemap', 'feed']),
    firstReferer: z.string().nullable().describe('the first fetched page that linked here'),
    inSitemap: z.boolean(),
    inLinks: z.number().int().describe('fetched pages of this crawl that link here'),
    orphan: z.boolean().describe('in a sitemap, linked from no fetched page'),
    unlisted: z.boolean().describe('linked, in no sitemap'),
    origin: z.string().describe('scheme, host and port of the page (subdomains differ)'),
    depth: z.number().int().describe('link hops from the seed'),
  })
  .meta({ id: 'CrawlPageRow' });
export type CrawlPageRow = z.infer<typeof crawlPageRowSchema>;

export const crawlEnvelopeSchema = jobEnvelopeSchema
  .extend({
    data: z.array(crawlPageRowSchema),
    projectId: z.string().describe('the crawl’s project: hidden until kept'),
    runId: z.string(),
    webhookSecret: z.string().optional().describe('returned once, when the crawl is created with a webhook'),
    limit: z
      .number()
      .int()
      .optional()
      .describe('GET: rows this page was given at most (the limit asked, at most 100 when bodies are returned)'),
  })
  .meta({ id: 'CrawlEnvelope' });
export type CrawlEnvelope = z.infer<typeof crawlEnvelopeSchema>;

export const crawlKeepSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    schedule: z.enum(['manual', 'daily', 'weekly']).optional(),
    retention: z
      .string()
      .regex(/^([1-9]\d{0,3}d|forever)$/, 'a number of days such as "30d", or "forever"')
      .optional(),
  })
  .meta({ id: 'CrawlKeep' });
export type CrawlKeep = z.infer<typeof crawlKeepSchema>;
