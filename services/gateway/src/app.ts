import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { Redis } from 'ioredis';
import { Bus } from '@tidemark/bus';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { createLogger, type Logger } from '@tidemark/telemetry';
import {
  billingV1,
  browserPoolV1,
  crawlPagesV1,
  crawlV1,
  diffV1,
  exportV1,
  mapV1,
  scrapeV1,
} from '@tidemark/contracts';
import { connectClient } from '@tidemark/rpc';
import type { Config } from './config.js';
import { authenticate } from './http/auth.js';
import { errorHandler, unknownRoute } from './http/errors.js';
import { idempotency } from './http/idempotency.js';
import { KeyCache } from './http/key-cache.js';
import { countAttempt, installRateLimitScript, rateLimit } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import type { AnyRoute } from './http/route.js';
import { mountRoutes } from './http/router.js';
import { renderDocsPage } from './openapi/docs-page.js';
import { buildOpenApi } from './openapi/openapi.js';
import { AccountRepository } from './repositories/account.repository.js';
import { ApiKeyRepository } from './repositories/api-key.repository.js';
import { IdempotencyRepository } from './repositories/idempotency.repository.js';
import { ProjectRepository } from './repositories/project.repository.js';
import { WorkspaceRepository } from './repositories/workspace.repository.js';
import { authRoutes } from './routes/auth.routes.js';
import { crawlRoutes } from './routes/crawl.routes.js';
import { keyRoutes } from './routes/keys.routes.js';
import { mapRoutes } from './routes/map.routes.js';
import { meRoutes } from './routes/me.routes.js';
import { metaRoutes } from './routes/meta.routes.js';
import { runRoutes } from './routes/runs.routes.js';
import { pageRoutes } from './routes/pages.routes.js';
import { changeRoutes } from './routes/changes.routes.js';
import { discoveryRoutes } from './routes/discovery.routes.js';
import { exportRoutes } from './routes/exports.routes.js';
import { projectRoutes } from './routes/projects.routes.js';
import { scrapeRoutes } from './routes/scrape.routes.js';
import { playgroundRoutes } from './routes/playground.routes.js';
import { proxyRoutes } from './routes/proxies.routes.js';
import { DeliveryClient } from './clients/delivery.client.js';
import { connectionRoutes } from './routes/connections.routes.js';
import { notificationRoutes } from './routes/notifications.routes.js';
import { webhookRoutes } from './routes/webhooks.routes.js';
import { secretBoxFor } from '@tidemark/secret-box';
import { AccountService } from './services/account.service.js';
import { ApiKeyService } from './services/api-key.service.js';
import { ProjectService } from './services/project.service.js';
import { WorkspaceService } from './services/workspace.service.js';

export interface GatewayApp {
  app: Express;
  routes: AnyRoute[];
  workspaces: WorkspaceService;
  start(): Promise<{ port: number; url: string }>;
  stop(): Promise<void>;
}

export interface GatewayOverrides {
  prisma?: PrismaClient;
  bus?: Bus;
  redis?: Redis;
  logger?: Logger;
}

/** Wires the gateway: the /v1 pipeline of the spec, in order, and every route. */
export const buildApp = async (cfg: Config, overrides: GatewayOverrides = {}): Promise<GatewayApp> => {
  const logger = overrides.logger ?? createLogger('gateway', cfg.LOG_LEVEL);
  const prisma = overrides.prisma ?? createPrismaClient(cfg.DATABASE_URL);
  const bus =
    overrides.bus ?? (await Bus.connect({ url: cfg.NATS_URL, prefix: cfg.NATS_PREFIX, name: 'gateway', logger }));
  const redis =
    overrides.redis ??
    new Redis(cfg.REDIS_URL, {
      keyPrefix: cfg.REDIS_PREFIX,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 1000,
    });
  redis.on('error', (err) => logger.warn({ err }, 'redis'));
  installRateLimitScript(redis);
  const billing = connectClient(billingV1.BillingServiceClient, cfg.BILLING_GRPC_URL, 'billing');
  const scrape = connectClient(scrapeV1.ScrapeServiceClient, cfg.SCRAPE_GRPC_URL, 'scrape');
  const browserPool = connectClient(browserPoolV1.BrowserPoolServiceClient, cfg.BROWSER_POOL_GRPC_URL, 'browser pool');
  const crawl = connectClient(crawlV1.CrawlServiceClient, cfg.CRAWL_GRPC_URL, 'crawl');
  const diff = connectClient(diffV1.DiffServiceClient, cfg.DIFF_GRPC_URL, 'diff');
  const exporter = connectClient(exportV1.ExportServiceClient, cfg.EXPORT_GRPC_URL, 'export');
  // A page in full (raw html, screenshot) can pass the default 4 MB message size.
  const crawlPages = connectClient(crawlPagesV1.PagesServiceClient, cfg.CRAWL_GRPC_URL, 'crawl', {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  // A finished map answers with every row (up to 50,000, about 10 MB): room for it.
  const map = connectClient(mapV1.MapServiceClient, cfg.MAP_GRPC_URL, 'map', {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });

  // Delivery answers over NATS request/reply (its package has no gRPC).
  const delivery = new DeliveryClient(bus);

  const keyRepo = new ApiKeyRepository(prisma);
  const keyCache = new KeyCache(keyRepo, bus);
  const projectRepo = new ProjectRepository(prisma);
  const idempotencyRepo = new IdempotencyRepository(prisma);
  const workspaces = new WorkspaceService(
    new WorkspaceRepository(prisma),
    billing,
    bus,
    keyCache,
    logger.child({ module: 'workspace.service' }),
  );
  const keys = new ApiKeyService(keyRepo, projectRepo, keyCache);
  const projects = new ProjectService(projectRepo);
  const sessionTtlMs = cfg.GATEWAY_SESSION_DAYS * 24 * 3600_000;
  const accounts = new AccountService(
    new AccountRepository(prisma),
    workspaces,
    delivery,
    secretBoxFor(cfg.SECRETS_KEY, (m) => logger.warn(m)),
    { sessionTtlMs, ...(cfg.GATEWAY_APP_URL ? { appUrl: cfg.GATEWAY_APP_URL } : {}) },
    logger.child({ module: 'account.service' }),
  );
  const accountRoutes = authRoutes(accounts, workspaces, redis, sessionTtlMs);
  // Sign-up, sign-in and the token routes answer before authentication.
  const publicRoutes = accountRoutes.filter((r) => r.auth === 'none');

  const routes: AnyRoute[] = [
    ...accountRoutes.filter((r) => r.auth !== 'none'),
    ...meRoutes(workspaces),
    ...keyRoutes(keys, cfg.PUBLIC_BASE_URL),
    ...metaRoutes(),
    ...projectRoutes(projects, cfg.PUBLIC_BASE_URL),
    ...runRoutes(crawl, projects, cfg.PUBLIC_BASE_URL),
    ...pageRoutes(crawlPages, projects, cfg.PUBLIC_BASE_URL),
    ...changeRoutes(diff, projects),
    ...discoveryRoutes(map, projects),
    ...exportRoutes(exporter, projects, idempotencyRepo, logger.child({ module: 'exports.routes' })),
    ...scrapeRoutes(scrape, cfg.PUBLIC_BASE_URL),
    ...playgroundRoutes(scrape),
    ...crawlRoutes(crawl, cfg.PUBLIC_BASE_URL),
    ...mapRoutes(map, cfg.PUBLIC_BASE_URL),
    ...proxyRoutes(browserPool),
    ...webhookRoutes(delivery, cfg.PUBLIC_BASE_URL),
    ...connectionRoutes(delivery),
    ...notificationRoutes(delivery, cfg.PUBLIC_BASE_URL),
  ];
  const openapi = buildOpenApi([...publicRoutes, ...routes]);
  const docsPage = renderDocsPage(openapi);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', cfg.TRUST_PROXY_HOPS);
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));

  const v1 = express.Router();
  v1.use(requestId);
  v1.get('/docs/openapi.json', (_req, res) => void res.json(openapi));
  v1.get('/docs', (_req, res) => void res.type('html').send(docsPage));
  const jsonBody = express.json({ limit: cfg.GATEWAY_BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  v1.use(
    mountRoutes(publicRoutes, [
      // Per client address, so nobody mass-creates accounts or floods an inbox with codes.
      async (req, _res, next) => {
        await countAttempt(redis, `auth-ip:${req.ip ?? 'unknown'}`, cfg.GATEWAY_AUTH_IP_RPM, 60_000);
        next();
      },
      jsonBody,
    ]),
  );
  v1.use(authenticate(keyCache, keyRepo, accounts));
  v1.use(rateLimit(redis, logger));
  v1.use(jsonBody);
  v1.use(idempotency(idempotencyRepo));
  v1.use(mountRoutes(routes));
  v1.use(unknownRoute);
  v1.use(errorHandler(logger));
  app.use('/v1', v1);
  app.use(requestId, unknownRoute, errorHandler(logger));

  let server: Server | undefined;
  const pruneTimer = setInterval(
    () => void idempotencyRepo.pruneExpired().catch((err) => logger.warn({ err }, 'idempotency prune failed')),
    3600_000,
  );
  pruneTimer.unref();

  return {
    app,
    routes: [...publicRoutes, ...routes],
    workspaces,
    start: () =>
      new Promise((resolve, reject) => {
        server = app.listen(cfg.GATEWAY_PORT, cfg.GATEWAY_HOST, (err?: Error) => {
          if (err) return reject(err);
          const { port } = server!.address() as AddressInfo;
          const url = `http://${cfg.GATEWAY_HOST}:${port}/v1`;
          logger.info({ url }, 'gateway listening');
          resolve({ port, url });
        });
      }),
    async stop() {
      clearInterval(pruneTimer);
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      billing.close();
      scrape.close();
      browserPool.close();
      crawl.close();
      crawlPages.close();
      diff.close();
      exporter.close();
      map.close();
      if (!overrides.redis) redis.disconnect();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
