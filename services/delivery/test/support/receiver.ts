import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** performance.now() when the request's body had arrived. */
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
}

export type Answer = { status: number; body?: string; delayMs?: number; hang?: boolean };
export type Behaviour = (req: Received, index: number) => Answer | Promise<Answer>;

/**
 * A webhook receiver on loopback: records every request (raw body kept, for signatures) and
 * answers as `behaviour` says — a status, after a delay, or never (`hang`).
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly waiters: { n: number; resolve: () => void }[] = [];
  /** Requests in progress right now (answered ones leave). */
  open = 0;
  maxOpen = 0;

  private constructor(
    private readonly server: Server,
    public behaviour: Behaviour,
  ) {}

  static async start(behaviour: Behaviour = () => ({ status: 200 })): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server, behaviour);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      receiver.open++;
      receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
      res.on('close', () => receiver.open--);
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // not JSON; the test looks at `body`
        }
        const r: Received = { at: performance.now(), path: req.url ?? '/', headers: req.headers, body, json };
        const index = receiver.received.push(r) - 1;
        receiver.notify();
        const answer = await receiver.behaviour(r, index);
        if (answer.hang) return;
        if (answer.delayMs) await new Promise((ok) => setTimeout(ok, answer.delayMs));
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `n` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs = 20_000): Promise<Received[]> {
    if (this.received.length >= n) return Promise.resolve(this.received);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver got ${this.received.length} of ${n} requests in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.received);
        },
      });
    });
  }

  private notify() {
    for (const w of [...this.waiters])
      if (this.received.length >= w.n) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
