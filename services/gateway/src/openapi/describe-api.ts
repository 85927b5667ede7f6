import { routeTable, type RouteTableDeps } from '../routes/route-table.js';
import { buildOpenApi, type OpenApiDocument } from './openapi.js';

/** A stand-in for a dependency the route table is built with but that describing it never calls. */
const unused = <T>(name: string): T =>
  new Proxy(
    {},
    {
      get: (_target, prop) => {
        throw new Error(`${name}.${String(prop)} was used while only describing the routes`);
      },
    },
  ) as T;

/**
 * The OpenAPI document of the route table, built without a database, Redis, NATS or any service:
 * what `GET /v1/docs/openapi.json` serves, for the code generators (`pnpm gen`).
 */
export const describeApi = (): OpenApiDocument => {
  const deps: RouteTableDeps = {
    accounts: unused('accounts'),
    workspaces: unused('workspaces'),
    keys: unused('keys'),
    projects: unused('projects'),
    headerSecrets: unused('headerSecrets'),
    redis: unused('redis'),
    delivery: unused('delivery'),
    scrape: unused('scrape'),
    browserPool: unused('browserPool'),
    crawl: unused('crawl'),
    crawlPages: unused('crawlPages'),
    diff: unused('diff'),
    exporter: unused('exporter'),
    map: unused('map'),
    usage: unused('usage'),
    monitor: unused('monitor'),
    logger: { child: () => unused('logger') } as unknown as RouteTableDeps['logger'],
    sessionCookie: { ttlMs: 0, secure: true },
  };
  const { publicRoutes, routes } = routeTable(deps);
  return buildOpenApi([...publicRoutes, ...routes]);
};
