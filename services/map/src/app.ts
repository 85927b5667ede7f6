import * as grpc from '@grpc/grpc-js';
import { Bus, StalledWorkWatchdog, type RunningConsumer } from '@tidemark/bus';
import { billingV1, mapV1, MAP_CREDITS_PER_SITEMAP_FILE } from '@tidemark/contracts';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { FetchGuard, guardedAgents } from '@tidemark/net-guard';
import { connectClient, listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { DiscoveryService, type FileCredits } from './discovery/discovery.service.js';
import { FileFetcher } from './discovery/file-fetcher.js';
import { MapJobService } from './jobs/map-job.service.js';
import { MapJobRepository } from './repositories/map-job.repository.js';
import { MapUrlRepository } from './repositories/map-url.repository.js';
import { mapRpc } from './rpc/map.rpc.js';
import { SnapshotRepository } from './repositories/snapshot.repository.js';
import { SnapshotService } from './snapshots/snapshot.service.js';
import { mapRunHandler } from './work/map-run.handler.js';

/** A map of 50,000 rows is about 10 MB of JSON: room for it both ways. */
export const MAP_GRPC_MESSAGE_BYTES = 64 * 1024 * 1024;
const MAX_DELIVER = 3;

export interface MapApp {
  jobs: MapJobService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export interface MapOverrides {
  prisma?: PrismaClient;
  bus?: Bus;
  logger?: Logger;
  /** Billing for one map's files (tests); default: billing gRPC Authorize/Charge. */
  credits?: (workspaceId: string, referencePrefix: string) => FileCredits;
}

export const buildApp = async (cfg: Config, overrides: MapOverrides = {}): Promise<MapApp> => {
  const logger = overrides.logger ?? createLogger('map', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  const bus = overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'map', logger }));
  const billing = overrides.credits
    ? null
    : connectClient(billingV1.BillingServiceClient, cfg.BILLING_GRPC_URL, 'billing');
  const credits =
    overrides.credits ??
    ((workspaceId: string, prefix: string): FileCredits => ({
      authorize: async (n) => {
        await billing!.call('authorize', {
          workspaceId,
          reference: `${prefix}:file:${n}`,
          credits: MAP_CREDITS_PER_SITEMAP_FILE,
          reason: 'map',
        });
      },
      charge: async (n, amount) => {
        await billing!.call('charge', {
          workspaceId,
          reference: `${prefix}:file:${n}`,
          credits: amount * MAP_CREDITS_PER_SITEMAP_FILE,
          reason: 'map',
          fromHold: '',
        });
      },
    }));
  const guard = new FetchGuard({ allowNetworks: cfg.FETCH_ALLOW_NETWORKS, hostMap: cfg.FETCH_HOST_MAP });
  const agents = guardedAgents(guard);
  const discovery = new DiscoveryService(
    new FileFetcher(agents, cfg.MAP_USER_AGENT),
    cfg.MAP_USER_AGENT,
    {
      maxFiles: cfg.MAP_MAX_FILES,
      maxDepth: cfg.MAP_MAX_DEPTH,
      fileTimeoutMs: cfg.MAP_FILE_TIMEOUT_MS,
      maxFileBytes: cfg.MAP_MAX_FILE_BYTES,
      maxCompressedBytes: cfg.MAP_MAX_COMPRESSED_BYTES,
    },
    logger.child({ module: 'discovery.service' }),
  );
  const jobs = new MapJobService(
    new MapJobRepository(prisma),
    new MapUrlRepository(prisma),
    discovery,
    bus,
    credits,
    { jobTimeoutMs: cfg.MAP_JOB_TIMEOUT_MS },
    logger.child({ module: 'map-job.service' }),
  );
  const snapshots = new SnapshotService(
    new SnapshotRepository(prisma),
    jobs,
    bus,
    logger.child({ module: 'snapshot.service' }),
  );
  jobs.onEnd = (job) => snapshots.onJobEnd(job);
  const server = new grpc.Server({
    'grpc.max_send_message_length': MAP_GRPC_MESSAGE_BYTES,
    'grpc.max_receive_message_length': MAP_GRPC_MESSAGE_BYTES,
  });
  server.addService(
    mapV1.MapServiceService,
    unaryService<mapV1.MapServiceServer>(mapRpc({ jobs, discovery, credits, snapshots }), logger),
  );
  let consumer: RunningConsumer | undefined;
  const watchdog = new StalledWorkWatchdog(
    bus,
    ['map-run'],
    (stallMs) => jobs.failStalled(stallMs),
    cfg.JOB_STALL_MS,
    logger.child({ module: 'map.watchdog' }),
  );
  let watchdogTimer: NodeJS.Timeout | undefined;

  return {
    jobs,
    async start() {
      consumer = await bus.consumeWork(
        'work.map.run',
        {
          durable: 'map-run',
          ackWaitMs: cfg.MAP_ACK_WAIT_MS,
          maxDeliver: MAX_DELIVER,
          concurrency: cfg.MAP_CONCURRENCY,
        },
        mapRunHandler(jobs, MAX_DELIVER),
      );
      watchdogTimer = setInterval(() => void watchdog.sweep(), cfg.JOB_WATCHDOG_MS);
      const grpcPort = await listen(server, cfg.MAP_GRPC_LISTEN);
      logger.info({ grpcPort }, 'map started');
      return { grpcPort };
    },
    async stop() {
      clearInterval(watchdogTimer);
      await consumer?.stop();
      await watchdog.idle();
      await shutdown(server);
      billing?.close();
      agents.http.destroy();
      agents.https.destroy();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
