import type { Redis } from 'ioredis';
import type { browserPoolV1, crawlPagesV1, crawlV1, diffV1, exportV1, mapV1, scrapeV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import type { Logger } from '@tidemark/telemetry';
import { accountRoutes } from '../accounts/account.routes.js';
import type { Accounts } from '../accounts/accounts.js';
import type { CookieOptions } from '../accounts/sessions/session-cookie.js';
import type { DeliveryClient } from '../clients/delivery.client.js';
import type { AnyRoute } from '../http/route.js';
import type { ApiKeyService } from '../services/api-key.service.js';
import type { HeaderSecrets } from '../services/header-secrets.js';
import type { MonitorService } from '../services/monitor.service.js';
import type { ProjectService } from '../services/project.service.js';
import type { UsageService } from '../services/usage.service.js';
import type { WorkspaceService } from '../services/workspace.service.js';
import { changeRoutes } from './changes.routes.js';
import { connectionRoutes } from './connections.routes.js';
import { crawlRoutes } from './crawl.routes.js';
import { discoveryRoutes } from './discovery.routes.js';
import { exportRoutes } from './exports.routes.js';
import { keyRoutes } from './keys.routes.js';
import { mapRoutes } from './map.routes.js';
import { meRoutes } from './me.routes.js';
import { metaRoutes } from './meta.routes.js';
import { notificationRoutes } from './notifications.routes.js';
import { pageRoutes } from './pages.routes.js';
import { playgroundRoutes } from './playground.routes.js';
import { projectRoutes } from './projects.routes.js';
import { proxyRoutes } from './proxies.routes.js';
import { runRoutes } from './runs.routes.js';
import { scrapeRoutes } from './scrape.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { workspaceActivityRoutes } from './workspace-activity.routes.js';

/** What the route handlers call. Building the table calls none of it (the OpenAPI writer relies on that). */
export interface RouteTableDeps {
  accounts: Accounts;
  workspaces: WorkspaceService;
  keys: ApiKeyService;
  projects: ProjectService;
  /** Seals the fetch.headers values of the configs callers send. */
  headerSecrets: HeaderSecrets;
  redis: Redis;
  delivery: DeliveryClient;
  scrape: RpcClient<scrapeV1.ScrapeServiceClient>;
  browserPool: RpcClient<browserPoolV1.BrowserPoolServiceClient>;
  crawl: RpcClient<crawlV1.CrawlServiceClient>;
  crawlPages: RpcClient<crawlPagesV1.PagesServiceClient>;
  diff: RpcClient<diffV1.DiffServiceClient>;
  exporter: RpcClient<exportV1.ExportServiceClient>;
  map: RpcClient<mapV1.MapServiceClient>;
  usage: UsageService;
  monitor: MonitorService;
  logger: Logger;
  sessionCookie: CookieOptions;
  publicBaseUrl?: string;
}

export interface RouteTable {
  /** Sign-up, sign-in and the token routes: they answer before authentication. */
  publicRoutes: AnyRoute[];
  /** Every route behind authentication. */
  routes: AnyRoute[];
}

/** Every route of /v1, in the order they are mounted (and printed into the OpenAPI document). */
export const routeTable = (d: RouteTableDeps): RouteTable => {
  const authRoutes = accountRoutes(d.accounts, d.workspaces, d.redis, d.sessionCookie);
  return {
    publicRoutes: authRoutes.filter((r) => r.auth === 'none'),
    routes: [
      ...authRoutes.filter((r) => r.auth !== 'none'),
      ...meRoutes(d.workspaces),
      ...keyRoutes(d.keys, d.publicBaseUrl),
      ...metaRoutes(),
      ...projectRoutes(d.projects, d.publicBaseUrl),
      ...runRoutes(d.crawl, d.projects, d.publicBaseUrl),
      ...pageRoutes(d.crawlPages, d.projects, d.publicBaseUrl),
      ...changeRoutes(d.diff, d.projects),
      ...discoveryRoutes(d.map, d.projects, d.publicBaseUrl),
      ...exportRoutes(d.exporter, d.projects, d.logger.child({ module: 'exports.routes' })),
      ...scrapeRoutes(d.scrape, d.headerSecrets, d.publicBaseUrl),
      ...playgroundRoutes(d.scrape, d.headerSecrets, d.publicBaseUrl),
      ...crawlRoutes(d.crawl, d.headerSecrets, d.publicBaseUrl),
      ...mapRoutes(d.map, d.publicBaseUrl),
      ...proxyRoutes(d.browserPool),
      ...workspaceActivityRoutes(d.usage, d.monitor),
      ...webhookRoutes(d.delivery, d.publicBaseUrl),
      ...connectionRoutes(d.delivery),
      ...notificationRoutes(d.delivery, d.publicBaseUrl),
    ],
  };
};
