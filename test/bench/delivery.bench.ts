// Webhook deliveries per second through the fleet (an event on the EVENTS stream → the delivery
// service's router → a durable delivery row → a signed POST) to a local receiver, against a
// baseline in the same process: the same number of signed POSTs sent straight with got at the
// same concurrency per receiver (what a sender with no queue, retries or records would do).
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import got from 'got';
import { Bus } from '@tidemark/bus';
import { createLogger } from '@tidemark/telemetry';
import { TEST_INFRA } from '@tidemark/testkit';
import { startTestFleet } from '../support/fleet.js';

const EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 2000);
const HOST_CONCURRENCY = 4;

/** A receiver that answers 200 at once and counts what it got. */
const receiver = async (): Promise<{ server: Server; url: string; count: () => number; reset: () => void }> => {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => n,
    reset: () => void (n = 0),
  };
};

const until = async (ok: () => boolean, timeoutMs: number) => {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error('deliveries did not all arrive; the figure would lie');
    await new Promise((r) => setTimeout(r, 5));
  }
};

export async function benchDelivery(): Promise<string> {
  const hook = await receiver();
  const t = await startTestFleet({ DELIVERY_HOST_CONCURRENCY: String(HOST_CONCURRENCY) });
  const bus = await Bus.connect({
    url: TEST_INFRA.natsUrl,
    prefix: t.env.NATS_PREFIX!,
    name: 'bench',
    logger: createLogger('bench', 'silent'),
  });
  try {
    const ws = await t.createWorkspace('bench');
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'unmetered' } });
    const project = await t.call('POST', '/projects', {
      key: ws.apiKey,
      body: {
        seed: 'https://bench.example/',
        config: { webhook_url: hook.url, webhook_events: ['page.changed'] },
      },
    });
    if (project.status !== 201) throw new Error(`project refused: ${JSON.stringify(project.body)}`);
    const event = (i: number) => ({
      projectId: project.body.id as string,
      runId: 'run_bench',
      url: `https://bench.example/${i}`,
      kind: 'modified' as const,
      wordsAdded: 12,
      wordsRemoved: 3,
      section: 'Prices',
      volatile: false,
      fields: [],
    });

    // Baseline: signed POSTs straight to the receiver, HOST_CONCURRENCY at a time.
    const secret = 'whsec_YmVuY2hiZW5jaGJlbmNoYmVuY2hiZW5jaA==';
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: HOST_CONCURRENCY }, async () => {
        for (let i = next++; i < EVENTS; i = next++) {
          const body = JSON.stringify({ id: randomUUID(), event: 'page.changed', data: event(i) });
          const signature = createHmac('sha256', secret).update(body).digest('hex');
          await got.post(hook.url, {
            body,
            headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${signature}` },
          });
        }
      }),
    );
    const baselineS = (performance.now() - t0) / 1000;
    await until(() => hook.count() === EVENTS, 10_000);
    hook.reset();

    // Through the fleet: publish every event, then wait until the receiver has them all.
    const t1 = performance.now();
    for (let i = 0; i < EVENTS; i += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, EVENTS - i) }, (_, j) =>
          bus.publishEvent(ws.workspaceId, 'page.changed', event(i + j)),
        ),
      );
    await until(() => hook.count() >= EVENTS, 300_000);
    const oursS = (performance.now() - t1) / 1000;
    const rows = await t.db.prisma.delivery.count({ where: { workspaceId: ws.workspaceId, status: 'delivered' } });
    if (rows !== EVENTS) throw new Error(`${rows} deliveries recorded as delivered of ${EVENTS}; the figure would lie`);
    const rate = (s: number) => EVENTS / s;
    return [
      `${EVENTS} page.changed events to one local receiver, ${HOST_CONCURRENCY} in flight to it`,
      `  baseline: signed POSTs with got, no queue      ${rate(baselineS).toFixed(0).padStart(6)} deliveries/s`,
      `  tidemark: events → delivery service → receiver ${rate(oursS).toFixed(0).padStart(6)} deliveries/s (each recorded, retry-ready)`,
      `  ratio tidemark / baseline: ${(rate(oursS) / rate(baselineS)).toFixed(3)}`,
    ].join('\n');
  } finally {
    await bus.close();
    await t.stop();
    await new Promise((ok) => hook.server.close(ok));
  }
}
