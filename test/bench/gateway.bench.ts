// GET /v1/me through the whole pipeline (auth, rate limit, billing over gRPC) against a bare
// express app answering the same body, on the same machine.
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { startTestFleet } from '../support/fleet.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

const load = async (url: string, headers: Record<string, string> = {}) => {
  // The load runs in a worker thread so it does not compete with the server for this event loop.
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers, workers: 1 });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors; the figure would lie`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
};

const row = (name: string, r: { rps: number; p50: number; p99: number }) =>
  `  ${name.padEnd(36)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms`;

export async function benchGateway(): Promise<string> {
  const t = await startTestFleet();
  const server = express().listen(0, '127.0.0.1');
  try {
    const ws = await t.createWorkspace('bench');
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'unmetered' } });
    const me = await t.call('GET', '/me', { key: ws.apiKey });
    if (me.status !== 200) throw new Error(`GET /me answered ${me.status}`);
    const raw = express();
    raw.get('/v1/me', (_req, res) => void res.json(me.body));
    server.on('request', raw);
    await new Promise((r) => (server.listening ? r(null) : server.once('listening', r)));
    const rawUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/me`;
    const auth = { authorization: `Bearer ${ws.apiKey}` };
    // Warm both (JIT, pools) before measuring.
    await autocannon({ url: rawUrl, connections: 4, duration: 1 });
    await autocannon({ url: `${t.apiUrl}/me`, connections: 4, duration: 1, headers: auth });
    const baseline = await load(rawUrl);
    const gateway = await load(`${t.apiUrl}/me`, auth);
    return [
      `GET /v1/me, ${CONNECTIONS} connections, ${DURATION_S} s each`,
      row('baseline: bare express, same body', baseline),
      row('tidemark gateway (full pipeline)', gateway),
      `  ratio gateway / baseline: ${(gateway.rps / baseline.rps).toFixed(3)}`,
    ].join('\n');
  } finally {
    server.close();
    await t.stop();
  }
}
