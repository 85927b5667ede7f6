import * as billing from '@tidemark/billing';
import * as gateway from '@tidemark/gateway';
import * as scrape from '@tidemark/scrape';

export interface Fleet {
  /** The API root, ending in /v1. */
  apiUrl: string;
  /** Where each gRPC service ended up listening (ports may have been picked by the system). */
  grpc: { billing: string; scrape: string };
  gateway: gateway.GatewayApp;
  stop(): Promise<void>;
}

interface Started {
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
  };
  try {
    const billingCfg = billing.loadConfig(env);
    const billingApp = await billing.buildApp(billingCfg);
    started.push(billingApp);
    env.BILLING_GRPC_URL = dial(billingCfg.BILLING_GRPC_LISTEN, (await billingApp.start()).grpcPort);

    const scrapeCfg = scrape.loadConfig(env);
    const scrapeApp = await scrape.buildApp(scrapeCfg);
    started.push(scrapeApp);
    env.SCRAPE_GRPC_URL = dial(scrapeCfg.SCRAPE_GRPC_LISTEN, (await scrapeApp.start()).grpcPort);

    const gatewayApp = await gateway.buildApp(gateway.loadConfig(env));
    started.push(gatewayApp);
    const { url } = await gatewayApp.start();
    return {
      apiUrl: url,
      grpc: { billing: env.BILLING_GRPC_URL, scrape: env.SCRAPE_GRPC_URL },
      gateway: gatewayApp,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
};
