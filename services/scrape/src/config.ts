import { requireSecretsKey, secretsKeyEnv } from '@tidemark/secret-box';
import { baseEnv, grpcEnv, parseEnv, watchdogEnv, z } from '@tidemark/config';
import { fetchGuardEnv } from '@tidemark/net-guard';
import { threadDefaults, type ThreadDefaults } from './reading/thread-defaults.js';

// Read from the cgroup files once, and only when a thread setting is not given.
let machine: ThreadDefaults | undefined;
const threads = (): ThreadDefaults => (machine ??= threadDefaults());

/** SCRAPE_BATCH_WINDOW's default, and what a workspace's batches share where nothing else says. */
export const DEFAULT_BATCH_WINDOW = 32;

const schema = baseEnv
  .merge(fetchGuardEnv)
  .merge(grpcEnv)
  .merge(watchdogEnv)
  .extend({
    SCRAPE_GRPC_LISTEN: z.string().default('127.0.0.1:50063'),
    /** Pages this process fetches at once. */
    SCRAPE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** Per-host ceiling within this process (a project's fetch.concurrency may ask for less). */
    SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /**
     * Most URLs of one batch scrape unsettled on the work stream at once (fewer on few hosts:
     * twice what they take in flight); the next goes on as each settles. Above the worker turns
     * one batch should be able to fill across the fleet (SCRAPE_CONCURRENCY per replica), below
     * that it slows a lone batch; each batch started after waits behind this many of each one
     * running, not behind all their URLs.
     */
    SCRAPE_BATCH_WINDOW: z.coerce.number().int().min(1).max(500).default(DEFAULT_BATCH_WINDOW),
    /**
     * Most URLs of one workspace's batches unsettled on the work stream at once, shared between
     * its open batches (each keeps at least one on): a workspace that posts many batches holds
     * what one batch would, not a window of each, so another workspace's batch is not queued
     * behind them all. Unset: SCRAPE_BATCH_WINDOW (one batch alone keeps its window).
     */
    SCRAPE_WORKSPACE_WINDOW: z.coerce.number().int().min(1).max(5000).optional(),
    /**
     * A batch that has not moved for this long has the URLs it put on the stream and that are
     * still queued published again (what a worker that died mid-dispatch left off). Below
     * JOB_STALL_MS, which fails a job that does not move.
     */
    SCRAPE_REDISPATCH_QUIET_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(5 * 60_000),
    SCRAPE_USER_AGENT: z.string().default('Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://tidemark.dev/bot)'),
    /** Largest body the HTTP rung reads; beyond it the fetch is cut (10 MB). */
    SCRAPE_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024),
    SCRAPE_ACK_WAIT_MS: z.coerce.number().int().min(100).default(60_000),
    /**
     * How long a settled crawl page may wait for others of this process to go back to the crawl
     * with it (one row statement, one message a crawl), while others are being fetched or read.
     */
    SCRAPE_CRAWL_HANDOFF_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(5),
    /** Leased crawls (ADR 14) this process fetches at once, each at its own concurrency. */
    SCRAPE_LEASES: z.coerce.number().int().min(1).max(256).default(8),
    /**
     * How long this process fetches a leased crawl before it makes way for leases that wait for
     * a worker (the crawl queues its slot again behind them); 0: a lease is held until its crawl
     * ends, and crawls that fill every worker keep every other waiting until one of them ends.
     */
    SCRAPE_LEASE_TURN_MS: z.coerce.number().int().min(0).default(60_000),
    /**
     * Threads that parse and read pages (content, verdict, fields, selector search): by default
     * one per core but the event loop's (one at least); each holds a heap of its own (~80 MB).
     * In a container, its CPU quota and memory limit bound the default (thread-defaults.ts).
     */
    SCRAPE_READ_THREADS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(() => threads().read),
    /**
     * Threads that may read the pages nobody waits on alone (a crawl's, a batch job's): by
     * default one per core, and never fewer than SCRAPE_READ_THREADS. The ones past
     * SCRAPE_READ_THREADS start when such pages queue and read those only, so a crawl has every
     * core while a one-URL call's page keeps the event loop a core of its own (on two cores a
     * second thread for every page sped crawls and slowed one-URL calls: docs/performance.md,
     * fourteenth and fifteenth rounds).
     */
    SCRAPE_BULK_READ_THREADS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(() => threads().bulk),
    /**
     * What reading one page (or matching one search selector in it) may take on its thread;
     * past it the thread is ended and the page's row says why. An ordinary page takes 5-30 ms.
     */
    SCRAPE_READ_BUDGET_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
    ...secretsKeyEnv,
  })
  .superRefine(requireSecretsKey);

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
