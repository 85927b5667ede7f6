import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback server whose first connections break before any answer. */
export interface BreakingServer {
  /** http://127.0.0.1:<port><path> */
  url(path: string): string;
  /** Requests received so far, broken ones included. */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * Answers every request with `page`, except the first `breaks` (Infinity: all), whose connection
 * is destroyed before any answer: what a client sees when a kept-alive socket it reuses was just
 * closed by the site (ECONNRESET).
 */
export const startBreakingServer = async (
  breaks: number,
  page: { type: string; body: string },
): Promise<BreakingServer> => {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    if (requests <= breaks) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
};
