import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface LocalWeb {
  port: number;
  url: string;
  /** Every request the server saw, as `METHOD path`, with its headers. */
  seen: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A loopback HTTP server answering from a table of paths (the test web of these tests). */
export const startLocalWeb = async (routes: Record<string, Handler | string>): Promise<LocalWeb> => {
  const seen: LocalWeb['seen'] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ path: req.url ?? '/', headers: req.headers });
    const route = routes[path];
    if (typeof route === 'function') return route(req, res);
    if (typeof route === 'string') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(route);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};

export const page = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>t</title>${head}</head><body>${body}</body></html>`;
