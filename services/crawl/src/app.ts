import { secretBoxFor } from '@tidemark/secret-box';
import * as grpc from '@grpc/grpc-js';
import { Bus, StalledWorkWatchdog, type RunningConsumer } from '@tidemark/bus';
import { crawlLeaseV1, crawlPagesV1, crawlV1 } from '@tidemark/contracts';
import { createPrismaClient, createRawDb, type PrismaClient } from '@tidemark/db';
import { listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import { mapClient } from './clients/map.client.js';
import { scrapeClient } from './clients/scrape.client.js';
import type { Config } from './config.js';
import { CrawlEngine } from './crawl/crawl-engine.js';
import type { DiscoveryPort } from './crawl/engine/discovery-port.js';
import { ProjectScopeService } from './runs/project-scope.service.js';
import { RunService } from './runs/run.service.js';
import { CrawlService, type RowsPort } from './crawl/crawl.service.js';
import { CrawlJobRepository } from './repositories/crawl-job.repository.js';
import { FrontierRepository } from './repositories/frontier.repository.js';
import { PagesService } from './pages/pages.service.js';
import { pagesRpc } from './pages/pages.rpc.js';
import { StoredPagesRepository } from './pages/stored-pages.repository.js';
import { activeWorkRpc } from './rpc/active-work.rpc.js';
import { crawlRpc } from './rpc/crawl.rpc.js';
import { crawlLeaseRpc } from './rpc/crawl-lease.rpc.js';
import { crawlPagesGiveUp, crawlPagesHandler } from './work/crawl-pages.handler.js';
import { CRAWL_START_MAX_DELIVER, crawlStartGiveUp, crawlStartHandler } from './work/crawl-start.handler.js';
import { CRAWL_WORK, failStalledCrawls } from './crawl/crawl-watchdog.js';

export interface CrawlApp {
  crawls: CrawlService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export const buildApp = async (
  cfg: Config,
  overrides: { prisma?: PrismaClient; bus?: Bus; logger?: Logger } = {},
): Promise<CrawlApp> => {
  const logger = overrides.logger ?? createLogger('crawl', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  // The crawl's steps (one transaction per batch of settled pages) run on node-postgres.
  const raw = createRawDb(cfg.DATABASE_URL);
  const bus =
    overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'crawl', logger }));
  const map = mapClient(cfg.MAP_GRPC_URL);
  const scrape = scrapeClient(cfg.SCRAPE_GRPC_URL);
  const discovery: DiscoveryPort = map;
  const rows: RowsPort = scrape;
  const jobs = new CrawlJobRepository(prisma, raw);
  const frontier = new FrontierRepository(prisma, raw);
  const engine = new CrawlEngine(
    jobs,
    frontier,
    bus,
    discovery,
    {
      userAgent: cfg.SCRAPE_USER_AGENT,
      staleMs: cfg.CRAWL_STALE_MS,
      maxInFlight: cfg.CRAWL_MAX_IN_FLIGHT,
      settleLingerMs: cfg.CRAWL_SETTLE_LINGER_MS,
      pageEventEvery: cfg.CRAWL_PAGE_EVENT_EVERY,
      pageEventMs: cfg.CRAWL_PAGE_EVENT_MS,
      defaultRetryAfterMs: cfg.CRAWL_DEFAULT_RETRY_AFTER_MS,
      discoveryTimeoutMs: cfg.CRAWL_DISCOVERY_TIMEOUT_MS,
      engine: cfg.CRAWL_ENGINE,
      leaseBuffer: cfg.CRAWL_LEASE_BUFFER,
      leaseSlots: cfg.CRAWL_LEASE_SLOTS,
    },
    logger.child({ module: 'crawl.engine' }),
  );
  const crawls = new CrawlService(
    jobs,
    frontier,
    engine,
    rows,
    bus,
    secretBoxFor(cfg.SECRETS_KEY, (m) => logger.warn(m)),
  );
  const runs = new RunService(jobs, engine, bus);
  const scopes = new ProjectScopeService(jobs, frontier, discovery, cfg.SCRAPE_USER_AGENT);
  const server = new grpc.Server();
  server.addService(
    crawlV1.CrawlServiceService,
    unaryService<crawlV1.CrawlServiceServer>({ ...crawlRpc(crawls, runs, scopes), ...activeWorkRpc(jobs) }, logger),
  );
  const storedPages = new StoredPagesRepository(prisma);
  const pages = new PagesService(jobs, frontier, storedPages, scrape);
  server.addService(
    crawlPagesV1.PagesServiceService,
    unaryService<crawlPagesV1.PagesServiceServer>(pagesRpc(pages), logger),
  );
  server.addService(
    crawlLeaseV1.CrawlLeaseServiceService,
    unaryService<crawlLeaseV1.CrawlLeaseServiceServer>(crawlLeaseRpc(engine, storedPages), logger),
  );
  const watchdogLog = logger.child({ module: 'crawl.watchdog' });
  const watchdog = new StalledWorkWatchdog(
    bus,
    CRAWL_WORK,
    failStalledCrawls(jobs, engine, watchdogLog),
    cfg.JOB_STALL_MS,
    watchdogLog,
  );
  const consumers: RunningConsumer[] = [];
  const timers: NodeJS.Timeout[] = [];
  /** The timed steps running now: stop() waits for them, so none outlives the pools it uses. */
  const stepsRunning = new Map<() => Promise<void>, Promise<void>>();
  /** Runs `step` every `ms`, never two of the same step at once. */
  const every = (ms: number, step: () => Promise<void>) =>
    timers.push(
      setInterval(() => {
        if (stepsRunning.has(step)) return;
        stepsRunning.set(
          step,
          step().finally(() => stepsRunning.delete(step)),
        );
      }, ms),
    );

  /** Steps every running crawl no message would move (delays, Retry-After, crawl.page, lost work). */
  const tick = async () => {
    try {
      for (const job of await jobs.running()) await engine.tick(job.id, job.runId);
    } catch (err) {
      logger.warn({ err }, 'crawl tick failed');
    }
  };
  /** Scheduled runs that are due (daily, weekly). */
  const schedule = async () => {
    try {
      const n = await runs.startDue();
      if (n) logger.info({ runs: n }, 'scheduled runs started');
    } catch (err) {
      logger.warn({ err }, 'scheduler step failed');
    }
  };
  const sweep = async () => {
    try {
      const n = await jobs.discardEphemeral(new Date(Date.now() - cfg.CRAWL_EPHEMERAL_TTL_MS));
      if (n) logger.info({ projects: n }, 'unkept crawl projects discarded');
      const pruned = await runs.pruneRuns();
      if (pruned) logger.info({ runs: pruned }, "runs past their project's retention pruned");
    } catch (err) {
      logger.warn({ err }, 'crawl sweep failed');
    }
  };

  return {
    crawls,
    async start() {
      consumers.push(
        await bus.consumeWork(
          'work.crawl.start',
          {
            durable: 'crawl-start',
            ackWaitMs: cfg.CRAWL_ACK_WAIT_MS,
            maxDeliver: CRAWL_START_MAX_DELIVER,
            concurrency: 4,
          },
          crawlStartHandler(engine),
          crawlStartGiveUp(engine),
        ),
        await bus.consumeWork(
          'work.crawl.pages',
          {
            durable: 'crawl-pages',
            ackWaitMs: cfg.CRAWL_ACK_WAIT_MS,
            maxDeliver: 10,
            concurrency: cfg.CRAWL_CONCURRENCY,
          },
          crawlPagesHandler(engine, storedPages),
          crawlPagesGiveUp(engine),
        ),
      );
      every(cfg.CRAWL_TICK_MS, tick);
      every(cfg.CRAWL_SWEEP_MS, sweep);
      every(cfg.CRAWL_SCHEDULE_MS, schedule);
      timers.push(setInterval(() => void watchdog.sweep(), cfg.JOB_WATCHDOG_MS));
      const grpcPort = await listen(server, cfg.CRAWL_GRPC_LISTEN);
      logger.info({ grpcPort }, 'crawl started');
      return { grpcPort };
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      for (const c of consumers) await c.stop();
      await Promise.all(stepsRunning.values());
      await watchdog.idle();
      await shutdown(server);
      map.close();
      scrape.close();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
      await raw.end();
    },
  };
};
