import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface UpstreamProxy {
  port: number;
  /** Targets asked for, as `CONNECT host:port` or `GET absolute-url`. */
  seen: string[];
  /** Requests refused for wrong or missing credentials. */
  refused: number;
  close(): Promise<void>;
}

/** A residential exit stand-in: a forward proxy (plain + CONNECT) behind basic auth. */
export const startUpstreamProxy = async (user: string, pass: string): Promise<UpstreamProxy> => {
  const expected = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const state = { seen: [] as string[], refused: 0 };
  const server = http.createServer((req, res) => {
    if (req.headers['proxy-authorization'] !== expected) {
      state.refused++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="exit"' }).end();
      return;
    }
    state.seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = http.request(
      {
        host: target.hostname,
        port: target.port || 80,
        path: target.pathname + target.search,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    if (req.headers['proxy-authorization'] !== expected) {
      state.refused++;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    state.seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    const up = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    get seen() {
      return state.seen;
    },
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};
