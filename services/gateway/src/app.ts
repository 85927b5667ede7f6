import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { Redis } from 'ioredis';
import { Bus } from '@tidemark/bus';
import { createPrismaClient, type PrismaClient } from '@tidemark/db';
import { createLogger, type Logger } from '@tidemark/telemetry';
import { FetchGuard } from '@tidemark/net-guard';
import { buildAccounts } from './accounts/accounts.js';
import type { Config } from './config.js';
import { authenticate } from './http/auth.js';
import { errorHandler, unknownRoute } from './http/errors.js';
import { IdempotencyStep } from './http/idempotency.js';
import { jsonBody } from './http/json-body.js';
import { KeyCache } from './http/key-cache.js';
import { countAttempt, installRateLimitScript, rateLimit } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import type { AnyRoute } from './http/route.js';
import { mountRoutes } from './http/router.js';
import { answerMalformedHttp } from './http/malformed-http.js';
import { refuseUnstorableInput } from './http/validate.js';
import { renderDocsPage } from './openapi/docs-page.js';
import { buildOpenApi } from './openapi/openapi.js';
import { routeTable } from './routes/route-table.js';
import { ApiKeyRepository } from './repositories/api-key.repository.js';
import { IdempotencyRepository } from './repositories/idempotency.repository.js';
import { ProjectRepository } from './repositories/project.repository.js';
import { WorkspaceRepository } from './repositories/workspace.repository.js';
import { connectServiceClients } from './clients/service-clients.js';
import { secretBoxFor } from '@tidemark/secret-box';
import { ApiKeyService } from './services/api-key.service.js';
import { MonitorService } from './services/monitor.service.js';
import { HeaderSecrets } from './services/header-secrets.js';
import { ProjectService } from './services/project.service.js';
import { UsageService } from './services/usage.service.js';
import { WorkspaceService } from './services/workspace.service.js';

const REDIS_READY_WAIT_MS = 3000;

/** Resolves once the connection is ready, or after `ms` whatever its state. */
const redisReady = (redis: Redis, ms: number): Promise<void> =>
  redis.status === 'ready'
    ? Promise.resolve()
    : new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        redis.once('ready', done);
      });

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
  const services = connectServiceClients(cfg);
  const { billing, scrape, browserPool, crawl, crawlPages, diff, exporter, map, delivery } = services;

  // Seals secrets at rest: second-factor seeds, secrets in kept idempotent answers.
  const box = secretBoxFor(cfg.SECRETS_KEY, (m) => logger.warn(m));
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
  // Saved URLs are judged by the fetch guard's save-time check (the services judge them again,
  // after DNS, when they connect).
  const guard = new FetchGuard({ allowNetworks: cfg.FETCH_ALLOW_NETWORKS, hostMap: cfg.FETCH_HOST_MAP });
  const outboundUrls = (url: string) => guard.checkUrl(url)?.message ?? null;
  // fetch.headers values hold credentials: sealed where a caller's config comes in.
  const headerSecrets = new HeaderSecrets(box);
  const projects = new ProjectService(projectRepo, outboundUrls, headerSecrets);
  const sessionTtlMs = cfg.GATEWAY_SESSION_DAYS * 24 * 3600_000;
  const accounts = buildAccounts(
    prisma,
    workspaces,
    delivery,
    box,
    { sessionTtlMs, ...(cfg.GATEWAY_APP_URL ? { appUrl: cfg.GATEWAY_APP_URL } : {}) },
    logger,
  );
  const { publicRoutes, routes } = routeTable({
    accounts,
    workspaces,
    keys,
    projects,
    headerSecrets,
    redis,
    delivery,
    scrape,
    browserPool,
    crawl,
    crawlPages,
    diff,
    exporter,
    map,
    usage: new UsageService(billing, scrape),
    monitor: new MonitorService(crawl, scrape, browserPool, bus, logger.child({ module: 'monitor.service' })),
    logger,
    // Session cookies are Secure in production whatever the request looked like (behind a proxy
    // that ends TLS, the gateway itself is spoken to over http).
    sessionCookie: { ttlMs: sessionTtlMs, secure: cfg.NODE_ENV === 'production' },
    publicBaseUrl: cfg.PUBLIC_BASE_URL,
  });
  const openapi = buildOpenApi([...publicRoutes, ...routes]);
  const docsPage = renderDocsPage(openapi);

  const app = express();
  app.disable('x-powered-by');
  // No ETag: every answer is read fresh and no client sends If-None-Match, while express would
  // hash each body on the event loop to make one (~60 ms for a 32 MB page of crawl rows).
  app.set('etag', false);
  app.set('trust proxy', cfg.TRUST_PROXY_HOPS);
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));

  const v1 = express.Router();
  v1.use(requestId);
  v1.get('/docs/openapi.json', (_req, res) => void res.json(openapi));
  v1.get('/docs', (_req, res) => void res.type('html').send(docsPage));
  const parseBody = jsonBody(cfg.GATEWAY_BODY_LIMIT);
  v1.use(
    mountRoutes(publicRoutes, {
      before: [
        // Per client address, so nobody mass-creates accounts or floods an inbox with codes.
        async (req, _res, next) => {
          await countAttempt(redis, `auth-ip:${req.ip ?? 'unknown'}`, cfg.GATEWAY_AUTH_IP_RPM, 60_000);
          next();
        },
        ...parseBody,
        refuseUnstorableInput,
      ],
    }),
  );
  v1.use(authenticate(keyCache, keyRepo, accounts.sessions));
  v1.use(rateLimit(redis, logger));
  v1.use(parseBody);
  v1.use(refuseUnstorableInput);
  v1.use(mountRoutes(routes, { idempotency: new IdempotencyStep(idempotencyRepo, box), outboundUrls }));
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
    async start() {
      // Redis first, briefly: the sign-in counters refuse (503) without it, so a gateway that
      // listened before its connection was up would refuse the first sign-ins for nothing.
      // Still down after that, the gateway starts anyway (rate limits fail open, sign-in closed).
      await redisReady(redis, REDIS_READY_WAIT_MS);
      // Header values a project kept in the clear from before they were sealed.
      void projects
        .sealStoredHeaders()
        .then((n) => n && logger.info({ projects: n }, 'sealed fetch.headers stored in the clear'))
        .catch((err) => logger.warn({ err }, 'could not seal stored fetch.headers'));
      return new Promise<{ port: number; url: string }>((resolve, reject) => {
        server = app.listen(cfg.GATEWAY_PORT, cfg.GATEWAY_HOST, (err?: Error) => {
          if (err) return reject(err);
          server!.on('clientError', answerMalformedHttp);
          const { port } = server!.address() as AddressInfo;
          const url = `http://${cfg.GATEWAY_HOST}:${port}/v1`;
          logger.info({ url }, 'gateway listening');
          resolve({ port, url });
        });
      });
    },
    async stop() {
      clearInterval(pruneTimer);
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      services.close();
      if (!overrides.redis) redis.disconnect();
      if (!overrides.bus) await bus.close();
      if (!overrides.prisma) await prisma.$disconnect();
    },
  };
};
