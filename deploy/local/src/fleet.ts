import * as billing from '@tidemark/billing';
import * as gateway from '@tidemark/gateway';

export interface Fleet {
  /** The API root, ending in /v1. */
  apiUrl: string;
  billingGrpcPort: number;
  gateway: gateway.GatewayApp;
  stop(): Promise<void>;
}

/**
 * Starts every service of the fleet inside this process, each with its own config parsed from
 * the same env, in dependency order (billing before the gateway that calls it). This is the
 * composition root: the only code that imports services; they never import each other.
 */
export const startFleet = async (env: Record<string, string | undefined> = process.env): Promise<Fleet> => {
  const billingApp = await billing.buildApp(billing.loadConfig(env));
  const { grpcPort } = await billingApp.start();
  try {
    const billingHost = billing
      .loadConfig(env)
      .BILLING_GRPC_LISTEN.replace(/:\d+$/, '')
      .replace(/^0\.0\.0\.0$/, '127.0.0.1');
    const gatewayApp = await gateway.buildApp(
      gateway.loadConfig({ ...env, BILLING_GRPC_URL: `${billingHost}:${grpcPort}` }),
    );
    const { url } = await gatewayApp.start();
    return {
      apiUrl: url,
      billingGrpcPort: grpcPort,
      gateway: gatewayApp,
      async stop() {
        await gatewayApp.stop();
        await billingApp.stop();
      },
    };
  } catch (err) {
    await billingApp.stop();
    throw err;
  }
};
