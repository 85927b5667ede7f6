import * as grpc from '@grpc/grpc-js';
import { browserPoolV1 } from '@tidemark/contracts';
import { FetchGuard } from '@tidemark/net-guard';
import { listen, shutdown, unaryService } from '@tidemark/rpc';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { ExitRegistry } from './exits/exit-registry.js';
import { BrowserPool } from './pool/browser-pool.js';
import type { LaunchedBrowser, LaunchSpec } from './pool/launch.js';
import { ForwardProxy } from './proxy/forward-proxy.js';
import { RenderService } from './render/render.service.js';
import { browserPoolRpc } from './rpc/browser-pool.rpc.js';

export interface BrowserPoolApp {
  pool: BrowserPool;
  renderer: RenderService;
  exits: ExitRegistry;
  /** Launches the browsers and the proxy, then binds gRPC (the bound port: config may ask for 0). */
  start(): Promise<{ grpcPort: number }>;
  stop(): Promise<void>;
}

export interface BrowserPoolOverrides {
  logger?: Logger;
  /** Name resolution for the guard (tests). */
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
  launch?: (spec: LaunchSpec) => Promise<LaunchedBrowser>;
  recycleAfter?: number;
  sparesPerBrowser?: number;
}

export const buildApp = async (cfg: Config, overrides: BrowserPoolOverrides = {}): Promise<BrowserPoolApp> => {
  const logger = overrides.logger ?? createLogger('browser-pool', cfg.LOG_LEVEL);
  const guard = new FetchGuard({
    allowNetworks: cfg.FETCH_ALLOW_NETWORKS,
    hostMap: cfg.FETCH_HOST_MAP,
    ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
  });
  const proxy = new ForwardProxy(guard, cfg.FETCH_HOST_MAP, logger.child({ module: 'forward-proxy' }));
  const exits = new ExitRegistry(cfg.BROWSER_EXITS);
  const pool = new BrowserPool({
    executablePath: cfg.BROWSER_EXECUTABLE,
    headless: cfg.BROWSER_HEADLESS,
    browsers: cfg.BROWSER_POOL_BROWSERS,
    tabsPerBrowser: cfg.BROWSER_POOL_TABS_PER_BROWSER,
    recycleAfter: overrides.recycleAfter ?? cfg.BROWSER_POOL_RECYCLE_AFTER,
    contextReuse: cfg.BROWSER_POOL_CONTEXT_REUSE,
    ...(overrides.sparesPerBrowser !== undefined ? { sparesPerBrowser: overrides.sparesPerBrowser } : {}),
    proxy,
    logger: logger.child({ module: 'browser-pool' }),
    ...(overrides.launch ? { launch: overrides.launch } : {}),
  });
  const renderer = new RenderService(
    pool,
    exits,
    {
      defaultTimeoutMs: cfg.BROWSER_RENDER_TIMEOUT_MS,
      maxHtmlBytes: cfg.BROWSER_MAX_HTML_BYTES,
      maxScreenshotBytes: cfg.BROWSER_MAX_SCREENSHOT_BYTES,
    },
    logger.child({ module: 'render.service' }),
  );
  const server = new grpc.Server();
  server.addService(
    browserPoolV1.BrowserPoolServiceService,
    unaryService<browserPoolV1.BrowserPoolServiceServer>(browserPoolRpc(renderer, exits, pool), logger),
  );

  return {
    pool,
    renderer,
    exits,
    async start() {
      const proxyPort = await proxy.start();
      await pool.start(proxyPort);
      const grpcPort = await listen(server, cfg.BROWSER_POOL_GRPC_LISTEN);
      logger.info({ grpcPort, proxyPort, browsers: cfg.BROWSER_POOL_BROWSERS }, 'browser-pool started');
      return { grpcPort };
    },
    async stop() {
      await shutdown(server);
      await pool.stop();
      await proxy.stop();
    },
  };
};
