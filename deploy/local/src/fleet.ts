import * as agent from '@tidemark/agent';
import * as billing from '@tidemark/billing';
import * as browserPool from '@tidemark/browser-pool';
import * as crawl from '@tidemark/crawl';
import * as delivery from '@tidemark/delivery';
import * as diff from '@tidemark/diff';
import * as exporter from '@tidemark/export';
import * as gateway from '@tidemark/gateway';
import * as map from '@tidemark/map';
import * as scrape from '@tidemark/scrape';
import * as web from '@tidemark/web';
import { freePort } from './process-fleet.js';

export interface Fleet {
  /** The API root, ending in /v1. */
  apiUrl: string;
  /** The web application (it proxies /v1 to the gateway), ending in '/'. */
  webUrl: string;
  /** The agent tool server over Streamable HTTP (`http://host:port/mcp`; a bearer key per connection). */
  agentUrl: string;
  /** Where each gRPC service ended up listening (ports may have been picked by the system). */
  grpc: {
    billing: string;
    scrape: string;
    browserPool: string | null;
    crawl: string;
    map: string;
    diff: string;
    export: string;
    delivery: string;
  };
  gateway: gateway.GatewayApp;
  /** Stops one service while the rest run on (failure tests). */
  stopService(
    name: 'browserPool' | 'scrape' | 'billing' | 'crawl' | 'map' | 'delivery' | 'diff' | 'export',
  ): Promise<void>;
  stop(): Promise<void>;
}

interface Started {
  name: string;
  stop(): Promise<void>;
}

/** host:port a client should dial for a server bound at `listen` on `port`. */
const dial = (listen: string, port: number) =>
  `${listen.replace(/:\d+$/, '').replace(/^0\.0\.0\.0$|^\[::\]$/, '127.0.0.1')}:${port}`;

/**
 * Starts every service of the fleet inside this process, each with its own config parsed from
 * the same env, in dependency order (each learns where the ones it calls ended up listening).
 * This is the composition root: the only code that imports services; they never import each
 * other.
 */
export const startFleet = async (baseEnv: Record<string, string | undefined> = process.env): Promise<Fleet> => {
  const env = { ...baseEnv };
  const started: Started[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop();
    started.length = 0;
  };
  const stopService = async (name: string) => {
    const i = started.findIndex((s) => s.name === name);
    if (i >= 0) await started.splice(i, 1)[0]!.stop();
  };
  try {
    const billingCfg = billing.loadConfig(env);
    const billingApp = await billing.buildApp(billingCfg);
    started.push({ name: 'billing', stop: () => billingApp.stop() });
    env.BILLING_GRPC_URL = dial(billingCfg.BILLING_GRPC_LISTEN, (await billingApp.start()).grpcPort);

    // FLEET_BROWSER_POOL=0 leaves Chromium out (tests that do not need the browser tier): the
    // scrape service then finds the browser tier unavailable and says so on the rows.
    let browserPoolUrl: string | null = null;
    if (env.FLEET_BROWSER_POOL !== '0') {
      const poolCfg = browserPool.loadConfig(env);
      const poolApp = await browserPool.buildApp(poolCfg);
      started.push({ name: 'browserPool', stop: () => poolApp.stop() });
      browserPoolUrl = dial(poolCfg.BROWSER_POOL_GRPC_LISTEN, (await poolApp.start()).grpcPort);
      env.BROWSER_POOL_GRPC_URL = browserPoolUrl;
    }

    // Scrape pulls leased crawls' pages from crawl (ADR 14) and crawl calls scrape: the crawl's
    // port is chosen before either starts.
    const crawlListen = env.CRAWL_GRPC_LISTEN;
    if (crawlListen?.endsWith(':0')) {
      const host = crawlListen.slice(0, -2);
      env.CRAWL_GRPC_LISTEN = `${host}:${await freePort(host.replace(/^\[|\]$/g, ''))}`;
      env.CRAWL_GRPC_URL = dial(env.CRAWL_GRPC_LISTEN, Number(env.CRAWL_GRPC_LISTEN.split(':').pop()));
    }
    const scrapeCfg = scrape.loadConfig(env);
    const scrapeApp = await scrape.buildApp(scrapeCfg);
    started.push({ name: 'scrape', stop: () => scrapeApp.stop() });
    env.SCRAPE_GRPC_URL = dial(scrapeCfg.SCRAPE_GRPC_LISTEN, (await scrapeApp.start()).grpcPort);

    // Map calls billing; crawl calls map (Discover).
    const mapCfg = map.loadConfig(env);
    const mapApp = await map.buildApp(mapCfg);
    started.push({ name: 'map', stop: () => mapApp.stop() });
    env.MAP_GRPC_URL = dial(mapCfg.MAP_GRPC_LISTEN, (await mapApp.start()).grpcPort);

    const crawlCfg = crawl.loadConfig(env);
    const crawlApp = await crawl.buildApp(crawlCfg);
    started.push({ name: 'crawl', stop: () => crawlApp.stop() });
    env.CRAWL_GRPC_URL = dial(crawlCfg.CRAWL_GRPC_LISTEN, (await crawlApp.start()).grpcPort);

    // Diff compares a project run when crawl says it ended; the gateway reads its records.
    const diffCfg = diff.loadConfig(env);
    const diffApp = await diff.buildApp(diffCfg);
    started.push({ name: 'diff', stop: () => diffApp.stop() });
    env.DIFF_GRPC_URL = dial(diffCfg.DIFF_GRPC_LISTEN, (await diffApp.start()).grpcPort);

    // Export reads finished runs' rows; the gateway streams its files.
    const exportCfg = exporter.loadConfig(env);
    const exportApp = await exporter.buildApp(exportCfg);
    started.push({ name: 'export', stop: () => exportApp.stop() });
    env.EXPORT_GRPC_URL = dial(exportCfg.EXPORT_GRPC_LISTEN, (await exportApp.start()).grpcPort);

    // Delivery consumes the events of all the above; the gateway asks it over gRPC.
    const deliveryCfg = delivery.loadConfig(env);
    const deliveryApp = await delivery.buildApp(deliveryCfg);
    started.push({ name: 'delivery', stop: () => deliveryApp.stop() });
    env.DELIVERY_GRPC_URL = dial(deliveryCfg.DELIVERY_GRPC_LISTEN, (await deliveryApp.start()).grpcPort);

    const gatewayApp = await gateway.buildApp(gateway.loadConfig(env));
    started.push({ name: 'gateway', stop: () => gatewayApp.stop() });
    const { url, port: gatewayPort } = await gatewayApp.start();

    // The web application's server: the built app, and /v1 passed to this gateway.
    const webApp = web.buildApp(
      web.loadConfig({
        ...env,
        WEB_API_URL: env.WEB_API_URL ?? `http://${dial(env.GATEWAY_HOST ?? '127.0.0.1', gatewayPort)}`,
      }),
    );
    started.push({ name: 'web', stop: () => webApp.stop() });
    const { url: webUrl } = await webApp.start();

    // The agent tool server reaches the fleet only through the public API, as a user would.
    const agentApp = agent.buildApp(agent.loadConfig({ ...env, TIDEMARK_API_URL: url }));
    started.push({ name: 'agent', stop: () => agentApp.stop() });
    const { url: agentUrl } = await agentApp.start();
    return {
      apiUrl: url,
      webUrl,
      agentUrl,
      grpc: {
        billing: env.BILLING_GRPC_URL,
        scrape: env.SCRAPE_GRPC_URL,
        browserPool: browserPoolUrl,
        crawl: env.CRAWL_GRPC_URL,
        map: env.MAP_GRPC_URL,
        diff: env.DIFF_GRPC_URL,
        export: env.EXPORT_GRPC_URL,
        delivery: env.DELIVERY_GRPC_URL,
      },
      gateway: gatewayApp,
      stopService,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
};
