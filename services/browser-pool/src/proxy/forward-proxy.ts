// Long (~420 lines): plain HTTP and CONNECT tunnels, each guarded, routed or chained through an
// exit, with per-render sessions and byte counts. They share the listener and its guard; the fetch
// guard's inside-the-browser half is easier to audit as one file.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import {
  BlockedAddressError,
  guardedAgents,
  guardedSocket,
  HostNotFoundError,
  routeForHost,
  type FetchGuard,
  type HostRoute,
} from '@tidemark/net-guard';
import type { Logger } from '@tidemark/telemetry';

/** Set on every answer the proxy makes up itself, so a render can tell it from the site's. */
export const GUARD_HEADER = 'x-tidemark-guard';

/** An upstream forward proxy a session chains through (a residential exit). */
export interface ExitRoute {
  id: string;
  host: string;
  port: number;
  /** `Basic …` for Proxy-Authorization, when the exit has credentials. */
  authorization?: string;
}

/** Why the proxy did not connect somewhere, by host: what a render reports for its main document. */
export type Refusal =
  | { kind: 'blocked'; error: BlockedAddressError }
  | { kind: 'not_found'; error: HostNotFoundError }
  | { kind: 'exit'; error: Error }
  | { kind: 'network'; error: Error };

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

const forwardable = (raw: string[]): string[] => {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (/^(proxy-)?connection$/i.test(raw[i]!))
      for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
};

const classify = (err: unknown): Refusal => {
  if (err instanceof BlockedAddressError) return { kind: 'blocked', error: err };
  if (err instanceof HostNotFoundError) return { kind: 'not_found', error: err };
  return { kind: 'network', error: err instanceof Error ? err : new Error(String(err)) };
};

/** `host:port` of a CONNECT line, IPv6 literals in brackets. */
const splitAuthority = (authority: string): { host: string; port: number } | null => {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  return m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : null;
};
const authority = (host: string, port: number) => `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;

/** The storage origin of a request through the proxy (what a render must clear afterwards). */
const originOf = (scheme: 'http' | 'https', host: string, port: number): string | undefined => {
  try {
    return new URL(`${scheme}://${authority(host, port)}`).origin;
  } catch {
    return undefined;
  }
};

/** More origins than this in one render: the lane is not reused (clearing them would cost more). */
export const MAX_TRACKED_ORIGINS = 64;

/**
 * One browser context's own listener on the proxy. The context (a pool lane, reused for
 * successive renders, one at a time) points at this port only, so everything its page asks for
 * — document, subresources, redirects, workers — is attributed to the render in progress:
 * refusals by host, the exit it goes out through and the bytes it moved there, the origins it
 * touched. Between renders the session is suspended: it refuses everything and its connections
 * are dropped, so nothing (a keep-alive socket, a tunnel through an exit) carries over.
 */
export class ProxySession {
  /** Set before navigation for renders with use_exit. */
  exit: ExitRoute | undefined;
  readonly refusals = new Map<string, Refusal>();
  /** Origins (scheme://host:port) the current render sent requests to. */
  readonly origins = new Set<string>();
  /** More origins were seen than are tracked. */
  originsOverflow = false;
  /** False between renders: every request and tunnel is refused. */
  active = false;
  private readonly clients = new Set<Duplex>();
  private readonly exitSockets = new Set<net.Socket>();
  private exitBytesDone = 0;
  /** Bumped by each begin(): a socket of an earlier render closing late counts for nobody. */
  private generation = 0;

  constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  /** Starts a render on this session: fresh attribution, requests allowed. */
  begin(exit: ExitRoute | undefined): void {
    this.generation += 1;
    this.exit = exit;
    this.refusals.clear();
    this.origins.clear();
    this.originsOverflow = false;
    this.exitBytesDone = 0;
    this.active = true;
  }

  /** Ends a render: refuses everything from now on and drops every connection it had. */
  suspend(): void {
    this.active = false;
    this.exit = undefined;
    for (const s of this.clients) s.destroy();
    for (const s of this.exitSockets) s.destroy();
    this.exitSockets.clear();
  }

  /** Bytes both ways on connections to the exit so far. */
  exitBytes(): number {
    let live = 0;
    for (const s of this.exitSockets) live += s.bytesRead + s.bytesWritten;
    return this.exitBytesDone + live;
  }

  trackClient(socket: Duplex): void {
    this.clients.add(socket);
    socket.once('close', () => this.clients.delete(socket));
  }

  trackExit(socket: net.Socket): void {
    if (this.exitSockets.has(socket)) return;
    this.exitSockets.add(socket);
    const generation = this.generation;
    socket.once('close', () => {
      if (!this.exitSockets.delete(socket) || generation !== this.generation) return;
      this.exitBytesDone += socket.bytesRead + socket.bytesWritten;
    });
  }

  touch(scheme: 'http' | 'https', host: string, port: number): void {
    const origin = originOf(scheme, host, port);
    if (!origin || this.origins.has(origin)) return;
    if (this.origins.size >= MAX_TRACKED_ORIGINS) this.originsOverflow = true;
    else this.origins.add(origin);
  }

  refuse(host: string, refusal: Refusal): void {
    this.refusals.set(host.toLowerCase(), refusal);
  }

  async close(): Promise<void> {
    this.active = false;
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections();
    for (const s of this.clients) s.destroy();
    for (const s of this.exitSockets) s.destroy();
    await closed;
  }
}

/**
 * The fetch guard inside the browser. Chromium resolves names itself, so it never connects
 * anywhere directly: every context is pointed at a listener of this proxy (plain requests and
 * CONNECT tunnels), which connects through @tidemark/net-guard — FETCH_HOST_MAP routing and
 * private-address refusal at connection time — or chains through a residential exit.
 */
export class ForwardProxy {
  private readonly agent: http.Agent;
  private defaultServer: http.Server | undefined;
  private readonly sessions = new Set<ProxySession>();

  constructor(
    private readonly guard: FetchGuard,
    private readonly hostMap: HostRoute[],
    private readonly logger: Logger,
  ) {
    this.agent = guardedAgents(guard, { keepAlive: true, maxSockets: 256 }).http;
  }

  /**
   * The listener Chromium is launched with. Renders never use it (each has its own); it refuses
   * everything, so Chromium's own background traffic (update checks, time sync) goes nowhere.
   */
  async start(): Promise<number> {
    const server = http.createServer((req, res) => {
      this.logger.debug({ url: req.url }, 'refused request outside a render');
      res.writeHead(403, { [GUARD_HEADER]: 'outside-render', 'content-length': '0' }).end();
    });
    server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
      this.logger.debug({ target: req.url }, 'refused tunnel outside a render');
      socket.on('error', () => undefined);
      socket.end(`HTTP/1.1 403 Forbidden\r\n${GUARD_HEADER}: outside-render\r\ncontent-length: 0\r\n\r\n`);
    });
    this.defaultServer = server;
    return listenLoopback(server);
  }

  async openSession(): Promise<ProxySession> {
    const server = http.createServer();
    server.keepAliveTimeout = 30_000;
    const port = await listenLoopback(server);
    const session = new ProxySession(server, port);
    server.on('connection', (socket: net.Socket) => session.trackClient(socket));
    server.on('request', (req, res) => void this.onRequest(session, req, res));
    server.on(
      'connect',
      (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(session, req, socket, head),
    );
    this.sessions.add(session);
    return session;
  }

  async closeSession(session: ProxySession): Promise<void> {
    this.sessions.delete(session);
    await session.close();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions].map((s) => this.closeSession(s)));
    if (this.defaultServer) {
      const server = this.defaultServer;
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    }
    this.agent.destroy();
  }

  /**
   * Where to ask the exit to connect. The guard runs first, so an exit cannot be used to reach
   * a private address either; a name the host map routes (the test web) or an IP literal is
   * sent as the address the guard chose, any other name as is, so the exit resolves it where it
   * is (geo-correct DNS).
   */
  private async exitTarget(host: string, port: number): Promise<string> {
    const dest = await this.guard.resolve(host, port);
    return net.isIP(host) || routeForHost(this.hostMap, host)
      ? authority(dest.address, dest.port)
      : authority(host, port);
  }

  private async onRequest(session: ProxySession, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { [GUARD_HEADER]: 'bad-request', 'content-length': '0' }).end();
      return;
    }
    if (target.protocol !== 'http:') {
      res.writeHead(400, { [GUARD_HEADER]: 'bad-request', 'content-length': '0' }).end();
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const port = Number(target.port || 80);
    if (!session.active) {
      res.writeHead(403, { [GUARD_HEADER]: 'outside-render', 'content-length': '0' }).end();
      return;
    }
    session.touch('http', host, port);
    const headers = forwardable(req.rawHeaders);
    const exit = session.exit;
    let upstream: http.ClientRequest;
    try {
      if (exit) {
        const via = await this.exitTarget(host, port);
        upstream = http.request({
          host: exit.host,
          port: exit.port,
          method: req.method,
          path: `http://${via}${target.pathname}${target.search}`,
          headers: exit.authorization ? [...headers, 'Proxy-Authorization', exit.authorization] : headers,
          agent: false,
        });
        upstream.once('socket', (s: net.Socket) => session.trackExit(s));
      } else {
        upstream = http.request({
          host,
          port,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
          agent: this.agent,
        });
      }
    } catch (err) {
      this.refuseRequest(session, host, classify(err), res);
      return;
    }
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      const refusal: Refusal =
        exit && !(err instanceof BlockedAddressError) ? { kind: 'exit', error: err } : classify(err);
      if (res.headersSent) res.destroy();
      else this.refuseRequest(session, host, refusal, res);
    });
    req.pipe(upstream);
    req.on('error', () => upstream.destroy());
  }

  private refuseRequest(session: ProxySession, host: string, refusal: Refusal, res: http.ServerResponse): void {
    session.refuse(host, refusal);
    const status = refusal.kind === 'blocked' ? 403 : 502;
    res.writeHead(status, { [GUARD_HEADER]: refusal.kind, 'content-type': 'text/plain' }).end(refusal.error.message);
  }

  private async onConnect(session: ProxySession, req: http.IncomingMessage, client: Duplex, head: Buffer) {
    client.on('error', () => undefined);
    const target = splitAuthority(req.url ?? '');
    if (!target) {
      client.end(`HTTP/1.1 400 Bad Request\r\n${GUARD_HEADER}: bad-request\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    if (!session.active) {
      client.end(`HTTP/1.1 403 Forbidden\r\n${GUARD_HEADER}: outside-render\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    session.touch('https', target.host, target.port);
    const exit = session.exit;
    let upstream: net.Socket;
    try {
      upstream = exit
        ? await this.tunnelThroughExit(session, exit, await this.exitTarget(target.host, target.port))
        : await guardedSocket(this.guard, target.host, target.port);
    } catch (err) {
      const refusal: Refusal =
        exit && !(err instanceof BlockedAddressError) && !(err instanceof HostNotFoundError)
          ? { kind: 'exit', error: err instanceof Error ? err : new Error(String(err)) }
          : classify(err);
      session.refuse(target.host, refusal);
      const status = refusal.kind === 'blocked' ? '403 Forbidden' : '502 Bad Gateway';
      client.end(`HTTP/1.1 ${status}\r\n${GUARD_HEADER}: ${refusal.kind}\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.pipe(client);
    client.pipe(upstream);
  }

  /** A CONNECT tunnel to `target` through the exit, its bytes counted on the session. */
  private tunnelThroughExit(session: ProxySession, exit: ExitRoute, target: string): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: exit.host, port: exit.port });
      session.trackExit(socket);
      let buffered = Buffer.alloc(0);
      const fail = (err: Error) => {
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error(`exit ${exit.id} did not answer CONNECT`)), 15_000);
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffered.length > 16_384) fail(new Error(`exit ${exit.id} sent an oversized CONNECT answer`));
          return;
        }
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('error', onError);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1];
        if (status !== '200') {
          fail(new Error(`exit ${exit.id} answered CONNECT with ${status ?? 'garbage'}`));
          return;
        }
        const rest = buffered.subarray(end + 4);
        if (rest.length) socket.unshift(rest);
        resolve(socket);
      };
      const onError = (err: Error) => {
        clearTimeout(timer);
        fail(new Error(`exit ${exit.id} unreachable: ${err.message}`));
      };
      socket.on('data', onData);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.write(
          `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n` +
            (exit.authorization ? `Proxy-Authorization: ${exit.authorization}\r\n` : '') +
            '\r\n',
        );
      });
    });
  }
}

const listenLoopback = (server: http.Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
