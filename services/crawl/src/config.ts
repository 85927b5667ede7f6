import { requireSecretsKey, secretsKeyEnv } from '@tidemark/secret-box';
import { baseEnv, grpcEnv, parseEnv, watchdogEnv, z } from '@tidemark/config';

const schema = baseEnv
  .merge(grpcEnv)
  .merge(watchdogEnv)
  .extend({
    CRAWL_GRPC_LISTEN: z.string().default('127.0.0.1:50065'),
    /** Results this process settles at once (each step holds its crawl's lock briefly). */
    CRAWL_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** The user agent robots.txt rules are read for: the scrape service's. */
    SCRAPE_USER_AGENT: z.string().default('Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://tidemark.dev/bot)'),
    /** Most pages of one crawl in flight at once, whatever its hosts and concurrency. */
    CRAWL_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1024).default(64),
    /**
     * How long a settle step may wait for more of its crawl's results (from the first one's
     * arrival, while fewer than half its pages in flight are back); 0 settles each as it comes.
     */
    CRAWL_SETTLE_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(10),
    /** How often the ticker looks at running crawls (delays, Retry-After, crawl.page, lost work). */
    CRAWL_TICK_MS: z.coerce.number().int().min(20).default(250),
    /**
     * A dispatched page unanswered this long is dispatched again; a lease slot whose holder has
     * not pulled this long is cut. A holder's lease (ADR 14) is half of it, at most 30 s.
     */
    CRAWL_STALE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(10 * 60_000),
    CRAWL_PAGE_EVENT_EVERY: z.coerce.number().int().min(1).default(50),
    CRAWL_PAGE_EVENT_MS: z.coerce.number().int().min(100).default(5000),
    CRAWL_DEFAULT_RETRY_AFTER_MS: z.coerce.number().int().min(0).default(30_000),
    CRAWL_DISCOVERY_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
    /** An unkept crawl's project is discarded after this long (a day). */
    CRAWL_EPHEMERAL_TTL_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(24 * 3600_000),
    CRAWL_SWEEP_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(10 * 60_000),
    /** How often the scheduler looks for daily and weekly projects that are due. */
    CRAWL_SCHEDULE_MS: z.coerce.number().int().min(100).default(30_000),
    CRAWL_ACK_WAIT_MS: z.coerce.number().int().min(100).default(60_000),
    /**
     * How a crawl's pages go to the scrape workers. leased (the default): scrape workers hold the
     * crawl's lease slots and trade pages with it in bulk through CrawlLeaseService (ADR 14).
     * paged: a message a URL and its result back on its own (ADR 13). Read when a crawl starts;
     * it keeps its engine.
     */
    CRAWL_ENGINE: z.enum(['paged', 'leased']).default('leased'),
    /** URLs a lease slot holds at most (in flight at its worker and waiting there). */
    CRAWL_LEASE_BUFFER: z.coerce.number().int().min(1).max(2000).default(200),
    /**
     * Lease slots a leased crawl opens (ADR 14): as many scrape workers can share one crawl, each
     * fetching its share of the crawl's concurrency. Set it to the scrape replicas one crawl
     * should spread over (the Helm chart sets the scrape replica count); a crawl with a
     * politeness delay has one, and none has more than its concurrency.
     */
    CRAWL_LEASE_SLOTS: z.coerce.number().int().min(1).max(16).default(1),
    ...secretsKeyEnv,
  })
  .superRefine(requireSecretsKey);

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
