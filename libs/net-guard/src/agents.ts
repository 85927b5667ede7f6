import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { FetchGuard } from './guard.js';

type ConnectOptions = {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  servername?: string;
};
type Callback = (err: Error | null, socket?: Duplex) => void;

/** Connects to what the guard allows, keeping the original name for TLS (SNI, certificate). */
const guardedConnect = (guard: FetchGuard, secure: boolean, options: ConnectOptions, cb: Callback): void => {
  const host = String(options.hostname ?? options.host ?? 'localhost');
  const port = Number(options.port ?? (secure ? 443 : 80));
  guard.resolve(host, port).then(
    (dest) => {
      const socket = secure
        ? tls.connect({
            ...(options as tls.ConnectionOptions),
            host: dest.address,
            port: dest.port,
            servername: options.servername ?? (net.isIP(host) ? undefined : host),
          })
        : net.connect({ host: dest.address, port: dest.port });
      const ready = secure ? 'secureConnect' : 'connect';
      const onError = (err: Error) => cb(err);
      socket.once('error', onError);
      socket.once(ready, () => {
        socket.off('error', onError);
        cb(null, socket);
      });
    },
    (err: Error) => cb(err),
  );
};

/**
 * http/https agents whose every connection goes through the guard: got, node:http and the
 * browser pool's proxy use them, so redirects and retries cannot slip past it.
 */
export const guardedAgents = (guard: FetchGuard, opts: http.AgentOptions = { keepAlive: true, maxSockets: 256 }) => {
  class GuardedHttpAgent extends http.Agent {
    override createConnection(options: ConnectOptions, cb: Callback): undefined {
      guardedConnect(guard, false, options, cb);
      return undefined;
    }
  }
  class GuardedHttpsAgent extends https.Agent {
    override createConnection(options: ConnectOptions, cb: Callback): undefined {
      guardedConnect(guard, true, options, cb);
      return undefined;
    }
  }
  return { http: new GuardedHttpAgent(opts), https: new GuardedHttpsAgent(opts) };
};

/** A raw TCP connection through the guard (for proxy CONNECT tunnels). */
export const guardedSocket = async (guard: FetchGuard, host: string, port: number): Promise<net.Socket> => {
  const dest = await guard.resolve(host, port);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: dest.address, port: dest.port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
};
