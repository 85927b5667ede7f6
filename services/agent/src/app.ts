import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@tidemark/telemetry';
import type { Config } from './config.js';
import { McpEndpoint } from './http/mcp-endpoint.js';

export interface AgentApp {
  server: Server;
  endpoint: McpEndpoint;
  /** Binds the port and answers the tool server's address (`http://host:port/mcp`). */
  start(): Promise<{ port: number; url: string }>;
  stop(): Promise<void>;
}

/** The tool server over Streamable HTTP at /mcp, and /healthz for probes. */
export const buildApp = (cfg: Config, overrides: { logger?: Logger } = {}): AgentApp => {
  const logger = overrides.logger ?? createLogger('agent', cfg.LOG_LEVEL);
  const endpoint = new McpEndpoint(cfg, logger.child({ module: 'mcp-endpoint' }));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (path !== '/mcp')
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'the tool server is at /mcp', code: 'not_found', request_id: null }));
    endpoint.handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'mcp request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal error', code: 'internal', request_id: null }));
    });
  });
  return {
    server,
    endpoint,
    start: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(cfg.AGENT_PORT, cfg.AGENT_HOST, () => {
          const { port } = server.address() as AddressInfo;
          const host = cfg.AGENT_HOST.includes(':') ? `[${cfg.AGENT_HOST}]` : cfg.AGENT_HOST;
          const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}/mcp`;
          logger.info({ url, api: cfg.TIDEMARK_API_URL }, 'tool server listening');
          resolve({ port, url });
        });
      }),
    async stop() {
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
