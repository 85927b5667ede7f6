import { z } from 'zod';

/**
 * The bodies of NATS messages, one zod schema each. `libs/bus` binds them to subjects so a
 * publisher cannot send, and a consumer cannot accept, a message of the wrong shape.
 */
export const billingWelcomeMessage = z.object({
  workspaceId: z.string().min(1),
});
export type BillingWelcomeMessage = z.infer<typeof billingWelcomeMessage>;

export const workspaceCreatedEvent = z.object({
  workspaceId: z.string().min(1),
  name: z.string(),
  createdAt: z.string(),
});

/** One URL of a scrape job to fetch through the ladder. */
export const scrapePageMessage = z.object({
  jobId: z.string().min(1),
  workspaceId: z.string().min(1),
  position: z.number().int().min(0),
  url: z.string().url(),
});
export type ScrapePageMessage = z.infer<typeof scrapePageMessage>;

/** batch.finished, scrape.completed, scrape.failed: what a job webhook will carry. */
export const scrapeJobEvent = z.object({
  jobId: z.string(),
  status: z.string(),
  progress: z.object({ done: z.number(), total: z.number(), queued: z.number() }),
  creditsUsed: z.number(),
  counts: z.record(z.string(), z.number()),
  webhookUrl: z.string().nullable(),
});

/** A map job to resolve: robots.txt, the sitemap tree and feeds of one site. */
export const mapRunMessage = z.object({
  jobId: z.string().min(1),
  workspaceId: z.string().min(1),
});
export type MapRunMessage = z.infer<typeof mapRunMessage>;

export const mapTotals = z.object({
  files: z.number().int(),
  urls: z.number().int(),
  indexes: z.number().int(),
  blocked: z.number().int(),
});
export type MapTotals = z.infer<typeof mapTotals>;

/** map.completed: what a job webhook will carry. */
export const mapJobEvent = z.object({
  jobId: z.string(),
  status: z.string(),
  totals: mapTotals,
  creditsUsed: z.number(),
});

/** A crawl job to start: read robots and sitemaps, seed the frontier, dispatch the first pages. */
export const crawlStartMessage = z.object({
  jobId: z.string().min(1),
  workspaceId: z.string().min(1),
  runId: z.string().min(1),
});
export type CrawlStartMessage = z.infer<typeof crawlStartMessage>;

/**
 * One page of a crawl for the scrape service's ladder. `request` is the scrape request the page
 * is fetched with (formats, config, scrapeOptions, maxCredits), without its URL.
 */
export const scrapeCrawlPageMessage = z.object({
  jobId: z.string().min(1),
  runId: z.string().min(1),
  workspaceId: z.string().min(1),
  position: z.number().int().min(0),
  url: z.string().url(),
  request: z.record(z.string(), z.unknown()),
  /** A retry of a page that was rate limited: its row is written again. */
  attempt: z.number().int().min(0).default(0),
  /** robots.txt forbids the URL: the row says so (verdict robots) and nothing is fetched. */
  robotsDisallowed: z.boolean().default(false),
});
export type ScrapeCrawlPageMessage = z.infer<typeof scrapeCrawlPageMessage>;

/**
 * A crawl's lease slot (ADR 14): the scrape worker that takes it fetches the slot's share of the
 * crawl's pages, trading with the crawl through CrawlLeaseService.PullCrawlWork until the crawl
 * ends. One holder a slot at a time; a worker that dies leaves it to JetStream's redelivery, a
 * silent one to the slot's next generation.
 */
export const scrapeCrawlLeaseMessage = z.object({
  jobId: z.string().min(1),
  runId: z.string().min(1),
  workspaceId: z.string().min(1),
  /** Which of the crawl's lease slots (a message of a crawl started before slots has none: 0). */
  slot: z.number().int().min(0).max(64).default(0),
  generation: z.number().int().min(0),
  /** The page options of the crawl's pages, and of its seed (which may keep more). */
  request: z.record(z.string(), z.unknown()),
  seedRequest: z.record(z.string(), z.unknown()),
  /**
   * How long a host that answered 429 without a Retry-After is left alone (the crawl's
   * CRAWL_DEFAULT_RETRY_AFTER_MS; a message of a crawl started before it was carried: 30 s).
   */
  defaultRetryAfterMs: z.number().int().min(0).default(30_000),
});
export type ScrapeCrawlLeaseMessage = z.infer<typeof scrapeCrawlLeaseMessage>;

/**
 * Broadcast on core NATS when a crawl ends (done, error, cancelled): the worker holding its lease
 * stops starting pages at once instead of at its next pull.
 */
export const crawlDoneSubject = (jobId: string) => `crawl.job.${jobId}.done`;
export const crawlDoneMessage = z.object({ jobId: z.string(), status: z.string() });

/** A crawl page the ladder has settled, back to the crawl service with the links it found. */
export const crawlPageResultMessage = z.object({
  jobId: z.string().min(1),
  runId: z.string().min(1),
  workspaceId: z.string().min(1),
  position: z.number().int().min(0),
  /** The dispatch this answers (the frontier row's attempts when it was handed out). */
  attempt: z.number().int().min(0).default(0),
  /** The rung that read it (http, browser, browser+exit, cache); null when nothing was fetched. */
  method: z.string().nullable().default(null),
  /** queued (not taken: the crawl was cancelled), done or error. */
  status: z.string(),
  verdict: z.string().nullable(),
  errorCode: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  credits: z.number().int(),
  /** Where redirects ended, when that differs from the URL asked for. */
  finalUrl: z.string().nullable(),
  /** Absolute http(s) links of the page (before scope rules); empty when `linksInRow`. */
  links: z.array(z.string()),
  /**
   * The page's links were too many to carry (a message has a size limit): they are in its stored
   * row, written before this message was sent, and the crawl reads them from there.
   */
  linksInRow: z.boolean().default(false),
  /** RATE_LIMITED: how long the host asked us to wait. */
  retryAfterMs: z.number().int().nullable(),
  /**
   * The workspace could not pay for the page (billing answered credits_exhausted): the crawl
   * stops. A page capped by maxCredits says BUDGET_EXHAUSTED too, but does not set this.
   */
  creditsExhausted: z.boolean().default(false),
  /** The scrape service gave the page up after its last redelivery: settle it, no retry. */
  gaveUp: z.boolean().default(false),
});
export type CrawlPageResultMessage = z.infer<typeof crawlPageResultMessage>;

/** What a crawl reads of a page's result (or of its stored row) to try the page again. */
export interface ResultOutcome {
  status: string;
  httpStatus: number | null;
  errorCode: string | null;
}

/** No answer, or a server error: a crawl tries the page again while it has tries left. */
export const transientResult = (r: ResultOutcome): boolean =>
  r.errorCode === 'NETWORK' ||
  r.errorCode === 'TIMEOUT' ||
  (r.httpStatus !== null && r.httpStatus >= 500) ||
  (r.status === 'error' && r.errorCode === null);

/** A result a crawl tries again rather than settles: transient, or rate limited (after its wait). */
export const crawlTriesAgain = (r: ResultOutcome): boolean => r.errorCode === 'RATE_LIMITED' || transientResult(r);

/**
 * The longest Retry-After a crawl honours. A host may name any time (a year, say), and a crawl
 * that waited it would never end; a longer ask is waited this long, and the page is then tried
 * again like any rate-limited page (at most max_retries times, so the crawl ends).
 */
export const MAX_CRAWL_RETRY_AFTER_MS = 10 * 60_000;

/** Most crawl pages handed back in one message. */
export const MAX_CRAWL_PAGES_A_MESSAGE = 64;

/**
 * Crawl pages a scrape worker settled together, all of one crawl, back in one message: the crawl
 * settles them in one step, and a page costs a share of one message instead of one of its own.
 */
export const crawlPagesResultMessage = z
  .object({ pages: z.array(crawlPageResultMessage).min(1).max(MAX_CRAWL_PAGES_A_MESSAGE) })
  .refine((m) => m.pages.every((p) => p.jobId === m.pages[0]!.jobId), {
    message: 'the pages of one message are of one crawl',
  });
export type CrawlPagesResultMessage = z.infer<typeof crawlPagesResultMessage>;

/** crawl.started, crawl.page, crawl.completed, crawl.failed: what a job webhook will carry. */
export const crawlJobEvent = z.object({
  jobId: z.string(),
  status: z.string(),
  progress: z.object({ done: z.number(), total: z.number(), queued: z.number() }),
  creditsUsed: z.number(),
  counts: z.record(z.string(), z.number()),
  stop: z.string().nullable(),
  webhook: z
    .object({ url: z.string(), events: z.array(z.string()), metadata: z.record(z.string(), z.unknown()) })
    .nullable(),
  /** crawl.page: the pages gathered into this message. */
  pages: z
    .array(
      z.object({
        url: z.string(),
        httpStatus: z.number().nullable(),
        verdict: z.string().nullable(),
        errorCode: z.string().nullable(),
      }),
    )
    .optional(),
});
export type CrawlJobEvent = z.infer<typeof crawlJobEvent>;

/** work.diff.compare: a project run ended; compare it with the run before and tell what changed. */
export const diffCompareMessage = z.object({
  workspaceId: z.string().min(1),
  runId: z.string().min(1),
});
export type DiffCompareMessage = z.infer<typeof diffCompareMessage>;

/** work.diff.digest: the model-written digest of a run's changes, to keep on its change record. */
export const diffDigestMessage = z.object({
  workspaceId: z.string().min(1),
  runId: z.string().min(1),
  digest: z.object({ summary: z.string(), points: z.array(z.string()).max(5), significant: z.boolean() }),
});
export type DiffDigestMessage = z.infer<typeof diffDigestMessage>;
