import * as grpc from '@grpc/grpc-js';
import { Bus, type RunningConsumer } from '@tidemark/bus';
import { billingV1 } from '@tidemark/contracts';
import { createPrismaClient, createRawDb, type PrismaClient } from '@tidemark/db';
import { listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { LedgerService } from './ledger/ledger.service.js';
import { LedgerRepository } from './repositories/ledger.repository.js';
import { WorkspaceReadRepository } from './repositories/workspace.repository.js';
import { billingRpc } from './rpc/billing.rpc.js';
import { welcomeHandler } from './work/welcome.handler.js';

export interface BillingApp {
  ledger: LedgerService;
  /** The bound gRPC port (useful when the config asked for port 0). */
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export const buildApp = async (
  cfg: Config,
  overrides: { prisma?: PrismaClient; bus?: Bus; logger?: Logger } = {},
): Promise<BillingApp> => {
  const logger = overrides.logger ?? createLogger('billing', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  // Holds and charges in batches, on node-postgres (RawDb): every crawled page makes both.
  const raw = createRawDb(cfg.DATABASE_URL);
  const bus =
    overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'billing', logger }));
  const ledgerRepo = new LedgerRepository(prisma, raw);
  const ledger = new LedgerService(
    ledgerRepo,
    new WorkspaceReadRepository(prisma),
    logger.child({ module: 'ledger.service' }),
  );
  const server = new grpc.Server();
  server.addService(
    billingV1.BillingServiceService,
    unaryService<billingV1.BillingServiceServer>(billingRpc(ledger), logger),
  );
  let consumer: RunningConsumer | undefined;
  const pruneTimer = setInterval(
    () => void ledgerRepo.pruneExpiredHolds().catch((err) => logger.warn({ err }, 'hold prune failed')),
    600_000,
  );
  pruneTimer.unref();

  return {
    ledger,
    async start() {
      consumer = await bus.consumeWork(
        'work.billing.welcome',
        { durable: 'billing-welcome', ackWaitMs: cfg.BILLING_ACK_WAIT_MS, maxDeliver: 10 },
        welcomeHandler(ledger),
      );
      const grpcPort = await listen(server, cfg.BILLING_GRPC_LISTEN);
      logger.info({ grpcPort }, 'billing started');
      return { grpcPort };
    },
    async stop() {
      clearInterval(pruneTimer);
      await consumer?.stop();
      await shutdown(server);
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
      await raw.end();
    },
  };
};
