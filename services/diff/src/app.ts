import * as grpc from '@grpc/grpc-js';
import { Bus, type RunningConsumer } from '@tidemark/bus';
import { diffV1 } from '@tidemark/contracts';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import { SelectorPool } from './bounded/selector-pool.js';
import { ChangeService } from './changes/change.service.js';
import type { Config } from './config.js';
import { ChangeRepository } from './repositories/change.repository.js';
import { RunPagesRepository } from './repositories/run-pages.repository.js';
import { diffRpc } from './rpc/diff.rpc.js';
import { diffCompareHandler, diffDigestHandler } from './work/diff-compare.handler.js';

export interface DiffApp {
  changes: ChangeService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export const buildApp = async (
  cfg: Config,
  overrides: { prisma?: PrismaClient; bus?: Bus; logger?: Logger } = {},
): Promise<DiffApp> => {
  const logger = overrides.logger ?? createLogger('diff', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  const bus =
    overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'diff', logger }));
  const selectors = new SelectorPool({
    threads: cfg.DIFF_SELECTOR_THREADS,
    budgetMs: cfg.DIFF_SELECTOR_BUDGET_MS,
    logger: logger.child({ module: 'selector-pool' }),
  });
  const changes = new ChangeService(
    new RunPagesRepository(prisma),
    new ChangeRepository(prisma),
    bus,
    logger.child({ module: 'change.service' }),
    selectors,
  );
  const server = new grpc.Server();
  server.addService(diffV1.DiffServiceService, unaryService<diffV1.DiffServiceServer>(diffRpc(changes), logger));
  const consumers: RunningConsumer[] = [];

  return {
    changes,
    async start() {
      consumers.push(
        await bus.consumeWork(
          'work.diff.compare',
          {
            durable: 'diff-compare',
            ackWaitMs: cfg.DIFF_ACK_WAIT_MS,
            maxDeliver: 5,
            concurrency: cfg.DIFF_CONCURRENCY,
          },
          diffCompareHandler(changes),
        ),
        await bus.consumeWork(
          'work.diff.digest',
          { durable: 'diff-digest', ackWaitMs: 30_000, maxDeliver: 5, concurrency: 4 },
          diffDigestHandler(changes),
        ),
      );
      const grpcPort = await listen(server, cfg.DIFF_GRPC_LISTEN);
      logger.info({ grpcPort }, 'diff started');
      return { grpcPort };
    },
    async stop() {
      for (const c of consumers) await c.stop();
      await shutdown(server);
      await selectors.close();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
