import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpSender } from '../src/sending/http-sender.js';

/**
 * A receiver that closes a kept-alive connection as it is reused: the first request on a
 * connection is answered, a second one on the same connection meets a reset (what a receiver's
 * idle timeout crossing our send looks like).
 */
describe('HttpSender on a kept-alive connection the receiver closed', () => {
  let server: http.Server;
  let url: string;
  const served: { onReused: boolean }[] = [];
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  beforeAll(async () => {
    const requestsOn = new WeakMap<object, number>();
    server = http.createServer((req, res) => {
      const n = requestsOn.get(req.socket) ?? 0;
      requestsOn.set(req.socket, n + 1);
      req.resume();
      req.on('end', () => {
        if (n > 0) {
          served.push({ onReused: true });
          req.socket.destroy();
          return;
        }
        served.push({ onReused: false });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    agents.http.destroy();
    await new Promise((ok) => server.close(ok));
  });

  it('sends once more on a new connection, and the delivery counts as delivered', async () => {
    const sender = new HttpSender(agents, 5000, 'tidemark-test');
    const first = await sender.post(url, {}, '{"n":1}');
    expect(first).toMatchObject({ status: 200, answer: 'delivered' });
    // The connection is kept and reused for the next send: the receiver resets it.
    const second = await sender.post(url, {}, '{"n":2}');
    expect(served.map((s) => s.onReused)).toEqual([false, true, false]);
    expect(second).toMatchObject({ status: 200, error: null, answer: 'delivered' });
  });

  it('counts a reset on a new connection as the attempt’s outcome', async () => {
    // Every request on this receiver is reset: a fresh connection fails too (not reused: no retry).
    const failing = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((ok) => failing.listen(0, '127.0.0.1', ok));
    const port = (failing.address() as AddressInfo).port;
    const sender = new HttpSender(agents, 5000, 'tidemark-test');
    const out = await sender.post(`http://127.0.0.1:${port}/hook`, {}, '{}');
    expect(out).toMatchObject({ status: null, answer: 'retryable' });
    await new Promise((ok) => failing.close(ok));
  });
});
