import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One scripted answer of the failure server: a status with headers and a body, a connection cut
 * before any answer (`drop`: the client sees a network failure) or no answer at all (`hang`).
 */
export type FailureStep =
  { status: number; headers?: Record<string, string>; body?: unknown } | { drop: true } | { hang: true };

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds since the server started. */
  at: number;
}

export interface FailureServer {
  /** An API root (`http://127.0.0.1:<port>/v1`) to point a client at. */
  apiUrl: string;
  /** The answers `method path` (path without the query) gives, in order; then 200 `{}`. */
  script(method: string, path: string, steps: FailureStep[]): void;
  /** Requests received (control calls excepted), oldest first. */
  requests(): SeenRequest[];
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

/**
 * A stand-in for the API that answers what it is told to, so client libraries' retry rules can be
 * tested against each failure: 429/502/503/504 with or without Retry-After, a cut connection,
 * a request that never gets an answer. Loopback only. Scripted in-process, or over HTTP by a
 * client in another language (Python's tests):
 *   POST /__control/script {method, path, steps}   GET /__control/requests   POST /__control/reset
 */
export const startFailureServer = async (): Promise<FailureServer> => {
  const scripts = new Map<string, FailureStep[]>();
  let seen: SeenRequest[] = [];
  const started = Date.now();
  const hanging = new Set<ServerResponse>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/html' : 'application/json',
      'x-request-id': `fail_${seen.length}`,
      ...headers,
    });
    res.end(text);
  };

  const control = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
    if (req.method === 'POST' && path === '/__control/script') {
      const {
        method,
        path: scripted,
        steps,
      } = JSON.parse(body) as { method: string; path: string; steps: FailureStep[] };
      scripts.set(`${method.toUpperCase()} ${scripted}`, [...steps]);
      return send(res, 204, undefined);
    }
    if (req.method === 'GET' && path === '/__control/requests') return send(res, 200, { data: seen });
    if (req.method === 'POST' && path === '/__control/reset') {
      scripts.clear();
      seen = [];
      return send(res, 204, undefined);
    }
    send(res, 404, { error: 'no such control route', code: 'not_found', request_id: null });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path.startsWith('/__control/')) return control(req, res, path, body);
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      seen.push({ method: req.method ?? 'GET', path, headers, body, at: Date.now() - started });
      const step = scripts.get(`${req.method} ${path}`)?.shift();
      if (!step) return send(res, 200, {});
      if ('drop' in step) return req.socket.destroy();
      if ('hang' in step) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      send(res, step.status, step.body, step.headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/v1`,
    script: (method, path, steps) => void scripts.set(`${method.toUpperCase()} ${path}`, [...steps]),
    requests: () => [...seen],
    reset: () => {
      scripts.clear();
      seen = [];
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
