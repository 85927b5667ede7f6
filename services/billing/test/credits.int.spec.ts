import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@tidemark/db';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { LedgerService } from '../src/ledger/ledger.service.js';
import { LedgerRepository } from '../src/repositories/ledger.repository.js';
import { WorkspaceReadRepository } from '../src/repositories/workspace.repository.js';

describe('authorize and charge', () => {
  let db: TestDatabase;
  let ledger: LedgerService;

  beforeAll(async () => {
    db = await createTestDatabase();
    ledger = new LedgerService(
      new LedgerRepository(db.prisma, db.raw),
      new WorkspaceReadRepository(db.prisma),
      createLogger('t', 'silent'),
    );
  });
  afterAll(() => db.drop());

  const workspace = async () => {
    const id = newId('ws');
    await db.prisma.workspace.create({ data: { id, name: 'credits' } });
    return id;
  };

  it('never lets concurrent holds spend more than is left', async () => {
    const ws = await workspace();
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => ledger.authorize(ws, `page:${i}`, 100, 'page')),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(10);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'credits_exhausted' });
    expect(await ledger.balance(ws)).toMatchObject({ granted: 1000, used: 0, remaining: 0 });
  });

  it('answers a burst of holds on one workspace each with a hold or credits_exhausted', async () => {
    // The holds queue on the workspace's lock and for the pool's connections: none may fail on
    // the wait itself (Prisma's transactions gave up after 2 s under load: P2028).
    const ws = await workspace();
    const results = await Promise.allSettled(
      Array.from({ length: 150 }, (_, i) => ledger.authorize(ws, `burst:${i}`, 10, 'page')),
    );
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(results.length - refused.length).toBe(100);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'credits_exhausted' });
    expect(await ledger.balance(ws)).toMatchObject({ granted: 1000, used: 0, remaining: 0 });
  });

  it('charges once per reference, releases the hold, and holds are idempotent', async () => {
    const ws = await workspace();
    await ledger.authorize(ws, 'page:a', 5, 'page');
    await ledger.authorize(ws, 'page:a', 5, 'page');
    expect((await ledger.balance(ws)).remaining).toBe(995);
    await expect(ledger.charge(ws, 'page:a', 1, 'page')).resolves.toEqual({ charged: 1 });
    await expect(ledger.charge(ws, 'page:a', 1, 'page')).resolves.toEqual({ charged: 0 });
    expect((await ledger.balance(ws)).remaining).toBe(999);
    // An authorization for work already charged holds nothing.
    await ledger.authorize(ws, 'page:a', 5, 'page');
    expect(await ledger.balance(ws)).toMatchObject({ used: 1, remaining: 999 });
    // Charging 0 only releases.
    await ledger.authorize(ws, 'page:b', 5, 'page');
    await ledger.charge(ws, 'page:b', 0, 'page');
    expect(await ledger.balance(ws)).toMatchObject({ used: 1, remaining: 999 });
  });

  it('stops counting a hold once it expired (a worker that died)', async () => {
    const ws = await workspace();
    await ledger.authorize(ws, 'page:lost', 400, 'page');
    expect((await ledger.balance(ws)).remaining).toBe(600);
    await db.prisma.creditHold.updateMany({
      where: { workspaceId: ws },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect((await ledger.balance(ws)).remaining).toBe(1000);
    await ledger.authorize(ws, 'page:lost', 400, 'page');
    expect((await ledger.balance(ws)).remaining).toBe(600);
  });

  it('refuses work a workspace with 3 credits cannot pay for', async () => {
    const ws = await workspace();
    await ledger.authorize(ws, 'big', 997, 'page');
    await ledger.charge(ws, 'big', 997, 'page');
    await expect(ledger.authorize(ws, 'browser', 5, 'page')).rejects.toMatchObject({ code: 'credits_exhausted' });
    await expect(ledger.authorize(ws, 'http', 1, 'page')).resolves.toBeUndefined();
    expect((await ledger.balance(ws)).remaining).toBe(2);
  });

  describe('several at once (AuthorizeMany, ChargeMany)', () => {
    const item = (workspaceId: string, reference: string, credits: number) => ({
      workspaceId,
      reference,
      credits,
      reason: 'page',
    });

    it('places holds in order while the balance pays, refusing the rest with the reason', async () => {
      const ws = await workspace();
      const outcomes = await ledger.authorizeMany(Array.from({ length: 12 }, (_, i) => item(ws, `page:${i}`, 100)));
      expect(outcomes.slice(0, 10)).toEqual(Array(10).fill(null));
      for (const refused of outcomes.slice(10)) expect(refused).toMatchObject({ code: 'credits_exhausted' });
      expect((await ledger.balance(ws)).remaining).toBe(0);
    });

    it('never lets concurrent batches and single holds spend more than is left', async () => {
      const ws = await workspace();
      const batches = Array.from({ length: 5 }, (_, b) =>
        ledger.authorizeMany(Array.from({ length: 4 }, (_, i) => item(ws, `b${b}:${i}`, 60))),
      );
      const singles = Array.from({ length: 5 }, (_, i) => ledger.authorize(ws, `s:${i}`, 60, 'page').then(() => null));
      const all = [...(await Promise.all(batches)).flat(), ...(await Promise.allSettled(singles)).map((r) => r)];
      const placed = all.filter((o) => o === null || (o as PromiseSettledResult<null>).status === 'fulfilled');
      expect(placed).toHaveLength(16); // 16 × 60 = 960 of 1,000
      expect((await ledger.balance(ws)).remaining).toBe(40);
    });

    it('renews a hold without counting it twice and holds nothing for work already charged', async () => {
      const ws = await workspace();
      await ledger.authorize(ws, 'page:a', 900, 'page');
      // Renewing page:a at 950 needs only 50 more; page:b then finds 50 left.
      expect(await ledger.authorizeMany([item(ws, 'page:a', 950), item(ws, 'page:b', 50)])).toEqual([null, null]);
      expect((await ledger.balance(ws)).remaining).toBe(0);
      await ledger.charge(ws, 'page:a', 1, 'page');
      expect(await ledger.authorizeMany([item(ws, 'page:a', 950)])).toEqual([null]);
      expect(await ledger.balance(ws)).toMatchObject({ used: 1, remaining: 949 });
    });

    it('charges each reference once, releases holds, and answers what each call charged', async () => {
      const ws = await workspace();
      const other = await workspace();
      await ledger.authorizeMany([item(ws, 'p:1', 5), item(ws, 'p:2', 5), item(other, 'p:1', 5)]);
      expect(await ledger.chargeMany([item(ws, 'p:1', 1), item(ws, 'p:2', 0), item(other, 'p:1', 10)])).toEqual([
        1, 0, 10,
      ]);
      expect(await ledger.chargeMany([item(ws, 'p:1', 1), item(other, 'p:1', 10)])).toEqual([0, 0]);
      expect(await ledger.balance(ws)).toMatchObject({ used: 1, remaining: 999 });
      expect(await ledger.balance(other)).toMatchObject({ used: 10, remaining: 990 });
      await expect(ledger.chargeMany([item(ws, '', 1)])).rejects.toMatchObject({ code: 'validation' });
    });

    it('charges units drawn from a block against its hold, once each, and a charge of 0 ends the block', async () => {
      const ws = await workspace();
      const held = async () =>
        (await db.prisma.creditHold.findFirst({ where: { workspaceId: ws, reference: 'block:job:1' } }))?.credits ??
        null;
      expect(await ledger.authorizeMany([item(ws, 'block:job:1', 32)])).toEqual([null]);
      expect(await ledger.balance(ws)).toMatchObject({ used: 0, remaining: 968 });
      const drawn = (ref: string, credits: number) => ({ ...item(ws, ref, credits), fromHold: 'block:job:1' });
      // Three pages charged: the block shrinks by what they cost, and the workspace's remaining
      // credits are what they were plus nothing counted twice.
      expect(await ledger.chargeMany([drawn('page:job:1:http', 1), drawn('page:job:2:http', 1)])).toEqual([1, 1]);
      expect(await ledger.chargeMany([drawn('page:job:3:browser', 5), drawn('page:job:4:http', 0)])).toEqual([5, 0]);
      expect(await held()).toBe(25);
      expect(await ledger.balance(ws)).toMatchObject({ used: 7, remaining: 968 });
      // A page charged again (a redelivered message) changes neither the ledger nor the block.
      expect(await ledger.chargeMany([drawn('page:job:1:http', 1)])).toEqual([0]);
      expect(await held()).toBe(25);
      // The block ends: what it did not spend is the workspace's again.
      expect(await ledger.chargeMany([item(ws, 'block:job:1', 0)])).toEqual([0]);
      expect(await held()).toBeNull();
      expect(await ledger.balance(ws)).toMatchObject({ used: 7, remaining: 993 });
    });
  });

  it('keeps the balance row equal to the ledger, whoever writes it, so nothing sums the ledger', async () => {
    const ws = await workspace();
    await ledger.balance(ws); // the welcome grant
    await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.authorize(ws, `page:${i}`, 3, 'page')));
    await ledger.chargeMany(
      Array.from({ length: 20 }, (_, i) => ({
        workspaceId: ws,
        reference: `page:${i}`,
        credits: i % 3,
        reason: 'page',
      })),
    );
    // Written straight into the table (a test, an operator's correction): the trigger still follows.
    await db.prisma.ledgerEntry.create({
      data: { id: newId('led'), workspaceId: ws, kind: 'grant', reason: 'pack', credits: 500, reference: 'pack:1' },
    });
    await db.prisma.ledgerEntry.deleteMany({ where: { workspaceId: ws, reference: 'page:1' } });
    await db.prisma.ledgerEntry.updateMany({ where: { workspaceId: ws, reference: 'page:2' }, data: { credits: -7 } });
    const [sums] = await db.prisma.$queryRaw<{ total: bigint; granted: bigint; used: bigint }[]>`
      SELECT SUM(credits)::bigint AS total,
             COALESCE(SUM(credits) FILTER (WHERE kind = 'grant'), 0)::bigint AS granted,
             COALESCE(0 - SUM(credits) FILTER (WHERE kind = 'charge'), 0)::bigint AS used
        FROM ledger_entry WHERE workspace_id = ${ws}`;
    const row = await db.prisma.creditBalance.findUniqueOrThrow({ where: { workspaceId: ws } });
    expect({ total: row.total, granted: row.granted, used: row.used, welcomed: row.welcomed }).toEqual({
      ...sums,
      welcomed: true,
    });
    expect(await ledger.balance(ws)).toMatchObject({
      granted: 1500,
      used: Number(sums!.used),
      remaining: Number(sums!.total),
    });
  });

  it('charges concurrently, in any order and with repeats, without a deadlock on the balance rows', async () => {
    const repo = new LedgerRepository(db.prisma, db.raw);
    const [a, b] = [await workspace(), await workspace()];
    for (let round = 0; round < 20; round++) {
      const entries = [a, b].flatMap((ws) =>
        [0, 1, 2].map((i) => ({
          workspaceId: ws,
          kind: 'charge' as const,
          reason: 'page',
          credits: -1,
          reference: `r${round}:${i}`,
        })),
      );
      // The same references, in opposite orders, from four statements at once.
      await Promise.all([
        repo.chargeManyOnce(entries),
        repo.chargeManyOnce([...entries].reverse()),
        repo.chargeManyOnce(entries.slice(2)),
        repo.chargeManyOnce([...entries].reverse().slice(1)),
      ]);
    }
    for (const ws of [a, b]) {
      const row = await db.prisma.creditBalance.findUniqueOrThrow({ where: { workspaceId: ws } });
      expect([row.total, row.used]).toEqual([-60n, 60n]);
    }
  });
});
