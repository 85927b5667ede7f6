import { z } from 'zod';
import { crawlPageRowSchema } from './crawl.js';
import { LinkSetKind, SearchMode } from './generated/tidemark/crawl/v1/pages.js';
import { RemovalReason } from './generated/tidemark/scrape/v1/scrape.js';
import { protoEnum } from './proto-enum.js';
import { JOB_STATUSES } from './scrape.js';
import { VERDICTS } from './vocabulary.js';

/** The pages of a project's runs (GET /projects/{id}/pages…, /runs/{run}/links, pages/search). */

export const PAGE_FLAGS = ['orphan', 'unlisted', 'dead_end'] as const;
export type PageFlag = (typeof PAGE_FLAGS)[number];
export const LINK_SETS = ['orphans', 'unlisted', 'dead_ends'] as const;
export type LinkSet = (typeof LINK_SETS)[number];
export const SEARCH_MODES = ['content', 'selector'] as const;
export const linkSetEnum = protoEnum(LinkSetKind, 'LINK_SET_KIND', LINK_SETS);
export const searchModeEnum = protoEnum(SearchMode, 'SEARCH_MODE', SEARCH_MODES);
/** Why the content pipeline took an element out (GET /projects/{id}/pages/removed). */
export const REMOVAL_REASONS = [
  'excluded',
  'hidden',
  'non-content',
  'banner',
  'base64 image',
  'outside main content',
] as const;
export const removalReasonEnum = protoEnum(RemovalReason, 'REMOVAL_REASON', REMOVAL_REASONS);
export const PAGE_VERDICTS = Object.keys(VERDICTS) as (keyof typeof VERDICTS)[];

export const pageListSchema = z
  .object({
    runId: z.string().describe('the run listed (the latest finished one unless run_id named another)'),
    data: z.array(crawlPageRowSchema),
    next: z.string().nullable().describe('ready-made URL of the following page, or null when finished'),
    cursor: z.string().nullable(),
  })
  .meta({ id: 'PageList' });
export type PageList = z.infer<typeof pageListSchema>;

export const pageVersionSchema = z
  .object({
    runId: z.string(),
    runStatus: z.enum(JOB_STATUSES),
    crawledAt: z.string().nullable(),
    verdict: z.string().nullable(),
    words: z.number().int().nullable(),
  })
  .meta({ id: 'PageVersion' });
export type PageVersion = z.infer<typeof pageVersionSchema>;

export const pageContentSchema = crawlPageRowSchema
  .extend({
    runId: z.string(),
    versions: z.array(pageVersionSchema).describe('this URL in the project’s earlier runs, newest first (at most 100)'),
  })
  .meta({ id: 'PageContent' });
export type PageContent = z.infer<typeof pageContentSchema>;

export const linkCoverageSchema = z
  .object({
    verdict: z.boolean().describe('whether the set can be taken as the truth about the site'),
    reason: z.string().nullable().describe('why not, when it is not'),
    stop: z.string().nullable().describe('how the run ended'),
    read: z.number().int().describe('pages the run read (ok, thin, cached)'),
    unread: z
      .number()
      .int()
      .describe('pages that were tried and not read (refused, failed, skipped), whose links are unknown'),
    sitemapUrls: z.number().int().describe('URLs the site’s sitemaps listed (0: none read)'),
    unscanned: z.number().int().describe('dead_ends: read pages whose links were not stored'),
  })
  .meta({ id: 'LinkCoverage' });
export type LinkCoverage = z.infer<typeof linkCoverageSchema>;

export const linkEntrySchema = z
  .object({
    url: z.string(),
    depth: z.number().int(),
    foundVia: z.string(),
    firstReferer: z.string().nullable(),
    inSitemap: z.boolean(),
    inLinks: z.number().int(),
    outLinks: z.number().int().nullable().describe('links found on the page (every host), once read'),
    verdict: z.string().nullable(),
    errorCode: z.string().nullable(),
    httpStatus: z.number().int().nullable(),
  })
  .meta({ id: 'LinkEntry' });
export type LinkEntry = z.infer<typeof linkEntrySchema>;

export const linkSetSchema = z
  .object({
    runId: z.string(),
    kind: z.enum(LINK_SETS),
    coverage: linkCoverageSchema,
    data: z.array(linkEntrySchema),
    next: z.string().nullable(),
    cursor: z.string().nullable(),
  })
  .meta({ id: 'LinkSet' });
export type LinkSetPage = z.infer<typeof linkSetSchema>;

export const pageSearchRequestSchema = z
  .strictObject({
    q: z
      .string()
      .min(1)
      .max(2000)
      .describe('content: words and "quoted phrases" (all must appear); selector: CSS, or XPath starting with / or ('),
    mode: z.enum(SEARCH_MODES).default('content'),
    run_id: z.string().min(1).max(100).optional().describe('default: the latest finished run'),
  })
  .meta({ id: 'PageSearch' });

export const pageSearchResultSchema = z
  .object({
    runId: z.string(),
    mode: z.enum(SEARCH_MODES),
    q: z.string(),
    counts: z.object({
      pages: z.number().int().describe('pages of the run'),
      scanned: z.number().int().describe('pages with the body the mode reads'),
      unscanned: z.number().int().describe('pages without it: counted, not guessed'),
      matched: z.number().int(),
    }),
    matches: z
      .array(
        z.object({
          url: z.string(),
          count: z.number().int().describe('occurrences of the terms, or nodes the selector matched'),
          snippet: z.string(),
          body: z.string().describe('the body scanned: markdown, html or cleanHtml'),
        }),
      )
      .describe('most matches first, then by URL; at most 1,000'),
    truncated: z.boolean().describe('more pages matched than are listed'),
  })
  .meta({ id: 'PageSearchResult' });
export type PageSearchResult = z.infer<typeof pageSearchResultSchema>;
