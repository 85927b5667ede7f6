import { browserPoolV1 } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { buildApp, type BrowserPoolApp, type BrowserPoolOverrides } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

export const request = (over: Partial<browserPoolV1.RenderRequest>): browserPoolV1.RenderRequest => ({
  ...browserPoolV1.RenderRequest.fromPartial({}),
  ...over,
});

/** An app of 2 browsers × 2 tabs on a free gRPC port, quiet. */
export const startApp = async (
  env: Record<string, string>,
  overrides: BrowserPoolOverrides = {},
): Promise<{ app: BrowserPoolApp; grpcPort: number }> => {
  const app = await buildApp(
    loadConfig({
      BROWSER_POOL_GRPC_LISTEN: '127.0.0.1:0',
      BROWSER_POOL_BROWSERS: '2',
      BROWSER_POOL_TABS_PER_BROWSER: '2',
      LOG_LEVEL: 'silent',
      ...env,
    }),
    { logger: createLogger('test', 'silent'), ...overrides },
  );
  const { grpcPort } = await app.start();
  return { app, grpcPort };
};
