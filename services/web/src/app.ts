import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@tidemark/telemetry';
import { apiProxy } from './api-proxy.js';
import type { Config } from './config.js';
import { staticFiles } from './static-files.js';

export interface WebApp {
  server: Server;
  /** Binds the port (config may ask for 0) and answers the app's address, ending in '/'. */
  start(): Promise<{ port: number; url: string }>;
  stop(): Promise<void>;
}

/** The web application's server: the built app as static files, and `/v1/*` to the gateway. */
export const buildApp = (cfg: Config, overrides: { logger?: Logger } = {}): WebApp => {
  const logger = overrides.logger ?? createLogger('web', cfg.LOG_LEVEL);
  const proxy = apiProxy(cfg.WEB_API_URL, cfg.WEB_PROXY_TIMEOUT_MS, logger.child({ module: 'api-proxy' }));
  const files = staticFiles(cfg.WEB_DIST_DIR);

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1?')) return proxy(req, res);
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    files(req, res).catch((err: unknown) => {
      logger.error({ err, path }, 'static file failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    });
  });

  return {
    server,
    start: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(cfg.WEB_PORT, cfg.WEB_HOST, () => {
          const { port } = server.address() as AddressInfo;
          const host = cfg.WEB_HOST.includes(':') ? `[${cfg.WEB_HOST}]` : cfg.WEB_HOST;
          const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/`;
          logger.info({ url, api: cfg.WEB_API_URL }, 'web app listening');
          resolve({ port, url });
        });
      }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
