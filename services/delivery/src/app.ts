import * as grpc from '@grpc/grpc-js';
import { Bus, consumeEvents, type RunningConsumer } from '@tidemark/bus';
import { deliveryV1 } from '@tidemark/contracts';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { FetchGuard, guardedAgents } from '@tidemark/net-guard';
import { listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { ConnectionService } from './connections/connection.service.js';
import { secretBoxFor } from '@tidemark/secret-box';
import { ChatCompletionsClient } from './digest/chat-completions.client.js';
import { DigestService } from './digest/digest.service.js';
import { EventRouter } from './events/event-router.service.js';
import { Mailer } from './notify/mailer.js';
import { NotificationService } from './notify/notification.service.js';
import { ConnectionRepository } from './repositories/connection.repository.js';
import { DeliveryRepository } from './repositories/delivery.repository.js';
import { NotificationRepository } from './repositories/notification.repository.js';
import { SourceRepository } from './repositories/source.repository.js';
import { WebhookRepository } from './repositories/webhook.repository.js';
import { deliveryRpc } from './rpc/delivery.rpc.js';
import { DeliverySender } from './sending/delivery-sender.js';
import { Dispatcher } from './sending/dispatcher.js';
import { HttpSender } from './sending/http-sender.js';
import { WebhookSecrets } from './webhooks/webhook-secrets.js';
import { WebhookService } from './webhooks/webhook.service.js';

export interface DeliveryApp {
  router: EventRouter;
  dispatcher: Dispatcher;
  digests: DigestService;
  connections: ConnectionService;
  notifications: NotificationService;
  webhooks: WebhookService;
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export interface DeliveryOverrides {
  prisma?: PrismaClient;
  logger?: Logger;
}

/** The durable consumer of events.>: every delivery process shares it. */
export const EVENTS_DURABLE = 'delivery-events';

export const buildApp = async (cfg: Config, overrides: DeliveryOverrides = {}): Promise<DeliveryApp> => {
  const logger = overrides.logger ?? createLogger('delivery', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  const bus = await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'delivery', logger });
  const box = secretBoxFor(cfg.SECRETS_KEY, (m) => logger.warn(m));
  const guard = new FetchGuard({ allowNetworks: cfg.FETCH_ALLOW_NETWORKS, hostMap: cfg.FETCH_HOST_MAP });
  const agents = guardedAgents(guard);
  const mailer = cfg.DELIVERY_SMTP_URL
    ? new Mailer(cfg.DELIVERY_SMTP_URL, cfg.DELIVERY_MAIL_FROM, cfg.DELIVERY_TIMEOUT_MS)
    : null;

  const deliveries = new DeliveryRepository(prisma);
  const sources = new SourceRepository(prisma);
  const connectionRepo = new ConnectionRepository(prisma);
  const secrets = new WebhookSecrets(new WebhookRepository(prisma), box);
  const models = new ChatCompletionsClient(agents, cfg.DELIVERY_DIGEST_TIMEOUT_MS, cfg.DELIVERY_USER_AGENT);
  const connections = new ConnectionService(connectionRepo, box, models, guard);
  const digests = new DigestService(connections, connectionRepo, models, logger.child({ module: 'digest.service' }));
  const dispatcher = new Dispatcher(
    deliveries,
    new DeliverySender(new HttpSender(agents, cfg.DELIVERY_TIMEOUT_MS, cfg.DELIVERY_USER_AGENT), mailer, secrets, box),
    {
      concurrency: cfg.DELIVERY_CONCURRENCY,
      hostConcurrency: cfg.DELIVERY_HOST_CONCURRENCY,
      pollMs: cfg.DELIVERY_POLL_MS,
      leaseMs: cfg.DELIVERY_LEASE_MS,
      retryScale: cfg.DELIVERY_RETRY_SCALE,
    },
    logger.child({ module: 'dispatcher' }),
  );
  const onQueued = () => dispatcher.wake();
  const router = new EventRouter({
    sources,
    deliveries,
    notifications: new NotificationRepository(prisma),
    digests,
    box,
    mail: mailer ? { host: mailer.host } : null,
    onQueued,
    onDigest: (workspaceId, runId, digest) =>
      bus.publishWork('work.diff.digest', { workspaceId, runId, digest }, { msgId: `${runId}:digest` }),
    logger: logger.child({ module: 'event-router' }),
  });
  const webhooks = new WebhookService(sources, deliveries, secrets, router, onQueued);
  const notifications = new NotificationService(new NotificationRepository(prisma), mailer !== null);
  const server = new grpc.Server();
  server.addService(
    deliveryV1.DeliveryServiceService,
    unaryService<deliveryV1.DeliveryServiceServer>(
      deliveryRpc({ webhooks, connections, digests, notifications, mailer }),
      logger,
    ),
  );
  let consumer: RunningConsumer | undefined;

  return {
    router,
    dispatcher,
    digests,
    connections,
    notifications,
    webhooks,
    async start() {
      dispatcher.start();
      consumer = await consumeEvents(
        bus,
        {
          durable: EVENTS_DURABLE,
          concurrency: cfg.DELIVERY_EVENT_CONCURRENCY,
          // A digest may take a minute; the consumer heartbeats while it runs.
          ackWaitMs: 30_000,
        },
        (event) => router.handle(event),
        logger.child({ module: 'events' }),
      );
      const grpcPort = await listen(server, cfg.DELIVERY_GRPC_LISTEN);
      logger.info({ grpcPort, retryScale: cfg.DELIVERY_RETRY_SCALE, mail: mailer !== null }, 'delivery started');
      return { grpcPort };
    },
    async stop() {
      await shutdown(server);
      await consumer?.stop();
      await dispatcher.stop();
      await bus.close();
      mailer?.close();
      agents.http.destroy();
      agents.https.destroy();
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
