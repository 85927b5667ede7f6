import { secretBoxFor } from '@tidemark/secret-box';
import * as grpc from '@grpc/grpc-js';
import { Bus, StalledWorkWatchdog, type RunningConsumer } from '@tidemark/bus';
import {
  billingV1,
  browserPoolV1,
  crawlDoneMessage,
  crawlDoneSubject,
  crawlLeaseV1,
  scrapeV1,
} from '@tidemark/contracts';
import { createPrismaClient, createRawDb, type PrismaClient } from '@tidemark/db';
import { FetchGuard, guardedAgents } from '@tidemark/net-guard';
import { connectClient, listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { JobPageWrites } from './jobs/job-page-writes.js';
import { JobCache } from './jobs/job-cache.js';
import { JobService } from './jobs/job.service.js';
import { ScrapeNow } from './jobs/scrape-now.js';
import { BrowserRung } from './ladder/browser-rung.js';
import { DeploymentRungs } from './ladder/deployment-rungs.js';
import { BatchingCredits } from './billing/credits-client.js';
import { HostLimiter } from './ladder/host-limiter.js';
import { HttpRung } from './ladder/http-rung.js';
import { LadderService } from './ladder/ladder.service.js';
import { RobotsCheck } from './ladder/robots-check.js';
import { PageReaderPool } from './reading/page-reader-pool.js';
import { JobRepository } from './repositories/job.repository.js';
import { PageRepository, toCachedResult } from './repositories/page.repository.js';
import { contentPreviewRpc } from './rpc/content-preview.rpc.js';
import { pageScanRpc } from './rpc/page-scan.rpc.js';
import { scrapeRpc } from './rpc/scrape.rpc.js';
import { workspaceActivityRpc } from './rpc/workspace-activity.rpc.js';
import { scrapeCrawlGiveUp, scrapeCrawlHandler } from './work/scrape-crawl.handler.js';
import { scrapePageGiveUp, scrapePageHandler } from './work/scrape-page.handler.js';
import { scrapeLeaseHandler } from './work/scrape-lease.handler.js';
import { LeaseRows } from './crawl-lease/lease-rows.js';

export interface ScrapeApp {
  jobs: JobService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export const buildApp = async (
  cfg: Config,
  overrides: { prisma?: PrismaClient; bus?: Bus; logger?: Logger } = {},
): Promise<ScrapeApp> => {
  const logger = overrides.logger ?? createLogger('scrape', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  // A crawl's page rows are written on node-postgres (RawDb): one statement per batch of pages.
  const raw = createRawDb(cfg.DATABASE_URL);
  const bus =
    overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'scrape', logger }));
  const billing = connectClient(billingV1.BillingServiceClient, cfg.BILLING_GRPC_URL, 'billing');
  // A render answers up to 10 MB of html and a 16 MB screenshot: past gRPC's 4 MB default.
  const browserPool = connectClient(browserPoolV1.BrowserPoolServiceClient, cfg.BROWSER_POOL_GRPC_URL, 'browser pool', {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  // Leased crawls (ADR 14) pull their pages from the crawl service.
  const crawl = connectClient(crawlLeaseV1.CrawlLeaseServiceClient, cfg.CRAWL_GRPC_URL, 'crawl');
  const guard = new FetchGuard({ allowNetworks: cfg.FETCH_ALLOW_NETWORKS, hostMap: cfg.FETCH_HOST_MAP });
  const agents = guardedAgents(guard);

  const credits = new BatchingCredits(billing, 'page', logger.child({ module: 'credits' }));
  const workspaceWindow = cfg.SCRAPE_WORKSPACE_WINDOW ?? cfg.SCRAPE_BATCH_WINDOW;
  const jobRepo = new JobRepository(prisma, raw, workspaceWindow);
  const pageRepo = new PageRepository(prisma, raw, workspaceWindow);
  // Seals job webhook secrets; opens the fetch.headers values the gateway sealed.
  const box = secretBoxFor(cfg.SECRETS_KEY, (m) => logger.warn(m));
  const reader = new PageReaderPool({
    threads: cfg.SCRAPE_READ_THREADS,
    bulkThreads: cfg.SCRAPE_BULK_READ_THREADS,
    budgetMs: cfg.SCRAPE_READ_BUDGET_MS,
    logger: logger.child({ module: 'page-reader' }),
  });
  const httpRung = new HttpRung(agents, cfg.SCRAPE_USER_AGENT, cfg.SCRAPE_MAX_BODY_BYTES);
  const ladder = new LadderService(
    httpRung,
    new BrowserRung(browserPool, cfg.SCRAPE_MAX_BODY_BYTES),
    credits,
    {
      fresh: async (ws, url, since) => {
        const page = await pageRepo.fresh(ws, url, since);
        return page ? toCachedResult(page) : null;
      },
    },
    reader,
    new RobotsCheck(httpRung, cfg.SCRAPE_USER_AGENT),
    logger.child({ module: 'ladder.service' }),
    (sealed) => box.open(sealed),
    new DeploymentRungs(browserPool, logger.child({ module: 'deployment-rungs' })),
  );
  const jobs = new JobService(jobRepo, pageRepo, bus, logger.child({ module: 'job.service' }), box, {
    window: cfg.SCRAPE_BATCH_WINDOW,
    hostConcurrency: cfg.SCRAPE_HOST_CONCURRENCY,
  });
  // Politeness per host is this process's, whichever way a page came: queued or read at once.
  const hosts = new HostLimiter(cfg.SCRAPE_HOST_CONCURRENCY);
  const jobPages = { writes: new JobPageWrites(pageRepo), jobService: jobs, ladder, hosts };
  const scrapeNow = new ScrapeNow(
    { ...jobPages, bus, logger: logger.child({ module: 'scrape-now' }) },
    cfg.SCRAPE_CONCURRENCY,
  );
  const leases = scrapeLeaseHandler(
    {
      crawl,
      pages: pageRepo,
      ladder,
      rows: new LeaseRows(pageRepo),
      logger: logger.child({ module: 'crawl-lease' }),
    },
    {
      turnMs: cfg.SCRAPE_LEASE_TURN_MS,
      waiting: async () => (await bus.consumerInfo('scrape-lease')).pending,
    },
  );
  const server = new grpc.Server();
  server.addService(
    scrapeV1.ScrapeServiceService,
    unaryService<scrapeV1.ScrapeServiceServer>(
      {
        ...scrapeRpc(jobs, scrapeNow),
        ...pageScanRpc(pageRepo, reader),
        ...contentPreviewRpc(pageRepo, reader),
        ...workspaceActivityRpc(jobRepo, pageRepo),
      },
      logger,
    ),
  );
  const consumers: RunningConsumer[] = [];
  /** Aborted as the service stops: batch pages waiting out an outage go back at once. */
  const stopping = new AbortController();
  const watchdog = new StalledWorkWatchdog(
    bus,
    ['scrape-page'],
    // A quiet batch first gets its queued URLs published again (a worker that died between a
    // page's count and the next URLs' publish); one that does not move for JOB_STALL_MS fails.
    async (stallMs) => {
      await jobs.redispatchQuiet(cfg.SCRAPE_REDISPATCH_QUIET_MS);
      return jobs.failStalled(stallMs);
    },
    cfg.JOB_STALL_MS,
    logger.child({ module: 'job.watchdog' }),
  );
  let watchdogTimer: NodeJS.Timeout | undefined;

  return {
    jobs,
    async start() {
      consumers.push(
        await bus.consumeWork(
          'work.scrape.page',
          {
            durable: 'scrape-page',
            ackWaitMs: cfg.SCRAPE_ACK_WAIT_MS,
            maxDeliver: 5,
            concurrency: cfg.SCRAPE_CONCURRENCY,
          },
          scrapePageHandler({
            ...jobPages,
            logger: logger.child({ module: 'scrape-page' }),
            stopping: stopping.signal,
            jobCache: new JobCache((id) => jobRepo.findById(id)),
          }),
          scrapePageGiveUp({ jobs: jobRepo, pages: pageRepo, jobService: jobs }),
        ),
        await bus.consumeWork(
          'work.scrape.crawl',
          {
            durable: 'scrape-crawl',
            ackWaitMs: cfg.SCRAPE_ACK_WAIT_MS,
            maxDeliver: 5,
            concurrency: cfg.SCRAPE_CONCURRENCY,
          },
          scrapeCrawlHandler({ bus, pages: pageRepo, ladder, handOffLingerMs: cfg.SCRAPE_CRAWL_HANDOFF_LINGER_MS }),
          scrapeCrawlGiveUp({ bus, pages: pageRepo, ladder }),
        ),
        // A lease is held for its crawl's whole length, or a turn when others wait; a worker holds this many at once.
        await bus.consumeWork(
          'work.scrape.lease',
          {
            durable: 'scrape-lease',
            ackWaitMs: cfg.SCRAPE_ACK_WAIT_MS,
            // Every worker that stops sends a lease back (a delivery): a crawl outlives many.
            maxDeliver: 1000,
            concurrency: cfg.SCRAPE_LEASES,
          },
          leases.handler,
        ),
      );
      // A crawl that ends (cancelled, failed) stops its lease's fetches now, not at the next pull.
      bus.onBroadcast(crawlDoneSubject('*'), crawlDoneMessage, (done) => leases.crawlEnded(done.jobId));
      watchdogTimer = setInterval(() => void watchdog.sweep(), cfg.JOB_WATCHDOG_MS);
      const grpcPort = await listen(server, cfg.SCRAPE_GRPC_LISTEN);
      logger.info({ grpcPort }, 'scrape started');
      return { grpcPort };
    },
    async stop() {
      clearInterval(watchdogTimer);
      stopping.abort();
      leases.releaseAll();
      for (const c of consumers) await c.stop();
      await watchdog.idle();
      await shutdown(server);
      await reader.close();
      await credits.close();
      billing.close();
      crawl.close();
      browserPool.close();
      agents.http.destroy();
      agents.https.destroy();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
      await raw.end();
    },
  };
};
