import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { billingV1 } from '@tidemark/contracts';
import { newId } from '@tidemark/db';
import { connectClient, type RpcClient } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';
import { BatchingCredits, BLOCK_CREDITS } from '../src/billing/credits-client.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';

/** A crawl's pages draw on blocks of credits, against the real billing service. */
describe('BatchingCredits', () => {
  let db: TestDatabase;
  let billingProcess: ServiceProcess;
  let billing: RpcClient<billingV1.BillingServiceClient>;
  const logger = createLogger('credits-test', 'silent');

  beforeAll(async () => {
    db = await createTestDatabase();
    billingProcess = await startServiceProcess('billing', {
      DATABASE_URL: db.url,
      NATS_URL: TEST_INFRA.natsUrl,
      NATS_PREFIX: uniquePrefix(),
      BILLING_GRPC_LISTEN: '127.0.0.1:0',
    });
    billing = connectClient(billingV1.BillingServiceClient, billingProcess.grpcUrl, 'billing');
  });
  afterAll(async () => {
    billing?.close();
    await billingProcess?.stop();
    await db?.drop();
  });

  /** A workspace with its welcome credits (1000) and `spent` of them charged. */
  const workspace = async (spent = 0) => {
    const id = newId('ws');
    await db.prisma.workspace.create({ data: { id, name: 'credits' } });
    await billing.call('balance', { workspaceId: id });
    if (spent)
      await db.prisma.ledgerEntry.create({
        data: {
          id: newId('led'),
          workspaceId: id,
          kind: 'charge',
          reason: 'test',
          credits: -spent,
          reference: 'spent',
        },
      });
    return id;
  };
  const holds = (ws: string) => db.prisma.creditHold.findMany({ where: { workspaceId: ws } });
  const used = async (ws: string) => (await billing.call('balance', { workspaceId: ws })).used;

  it('holds one block for many pages, charges each page once against it, and gives back what was not drawn', async () => {
    const ws = await workspace();
    const credits = new BatchingCredits(billing, 'page', logger);
    const pages = 2 * BLOCK_CREDITS + 5;
    let blocksSeen = 0;
    for (let i = 0; i < pages; i++) {
      await credits.authorize(ws, `page:job:${i}:http`, 1, { id: 'job', chargesLinger: true });
      blocksSeen = Math.max(blocksSeen, (await holds(ws)).length);
      // The second rung of every tenth page got no answer: its draw is charged 0 and drawn again.
      if (i % 10 === 0) {
        await credits.authorize(ws, `page:job:${i}:browser`, 5, { id: 'job', chargesLinger: true });
        await credits.charge(ws, `page:job:${i}:browser`, 0);
      }
      await credits.charge(ws, `page:job:${i}:http`, 1);
    }
    // No page held credits of its own: one block at a time (a used-up one ends as the next begins).
    expect(blocksSeen).toBeLessThanOrEqual(2);
    expect((await holds(ws)).every((h) => h.reference.startsWith('block:job:'))).toBe(true);
    expect(await used(ws)).toBe(pages);
    expect(await db.prisma.ledgerEntry.count({ where: { workspaceId: ws, reference: { startsWith: 'page:' } } })).toBe(
      pages,
    );
    // A redelivered page charged again changes nothing.
    await credits.authorize(ws, 'page:job:0:http', 1, { id: 'job', chargesLinger: true });
    await credits.charge(ws, 'page:job:0:http', 1);
    expect(await used(ws)).toBe(pages);
    // Stopping the worker releases its block: nothing stays held.
    await credits.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(await holds(ws)).toEqual([]);
    expect((await billing.call('balance', { workspaceId: ws })).remaining).toBe(1000 - pages);
  });

  it('holds page by page when the balance cannot pay for a block, to the last credit', async () => {
    const ws = await workspace(1000 - 10);
    const credits = new BatchingCredits(billing, 'page', logger);
    for (let i = 0; i < 10; i++) {
      await credits.authorize(ws, `page:poor:${i}:http`, 1, { id: 'poor' });
      await credits.charge(ws, `page:poor:${i}:http`, 1);
    }
    await expect(credits.authorize(ws, 'page:poor:10:http', 1, { id: 'poor' })).rejects.toMatchObject({
      code: 'credits_exhausted',
    });
    expect(await used(ws)).toBe(1000);
    await credits.close();
    expect(await holds(ws)).toEqual([]);
  });

  it('lets pages in flight draw on one block at once without spending past it', async () => {
    const ws = await workspace();
    const credits = new BatchingCredits(billing, 'page', logger);
    await Promise.all(
      Array.from({ length: 3 * BLOCK_CREDITS }, async (_, i) => {
        await credits.authorize(ws, `page:many:${i}:http`, 1, { id: 'many' });
        await credits.charge(ws, `page:many:${i}:http`, 1);
      }),
    );
    expect(await used(ws)).toBe(3 * BLOCK_CREDITS);
    await credits.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(await holds(ws)).toEqual([]);
  });
});
