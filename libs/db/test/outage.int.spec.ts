import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asApiError } from '../../errors/src/index.js';
import { createPrismaClient, createRawDb } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../../testkit/src/index.js';

/** A loopback port nothing listens on: tcpmux's, which nothing here serves. */
const CLOSED_PORT = 1;

const codeOf = async (work: Promise<unknown>) => {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).not.toBeNull();
  const api = asApiError(err);
  return { code: api.code, status: api.status, retryable: api.retryable };
};

const UNAVAILABLE = { code: 'unavailable', status: 503, retryable: true };

describe('a database out of reach is `unavailable` (503, waited out), not `internal`', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.raw.$executeRaw`CREATE TABLE t (id int PRIMARY KEY)`;
  });
  afterAll(() => db.drop());

  it('when nothing answers on its port: Prisma (model and raw SQL) and node-postgres', async () => {
    const url = `postgresql://postgres@127.0.0.1:${CLOSED_PORT}/nowhere`;
    const prisma = createPrismaClient(url, 1);
    const raw = createRawDb(url, 1);
    try {
      expect(await codeOf(prisma.workspace.findFirst())).toEqual(UNAVAILABLE);
      expect(await codeOf(prisma.$queryRawUnsafe('SELECT 1'))).toEqual(UNAVAILABLE);
      expect(await codeOf(raw.$queryRawUnsafe('SELECT 1'))).toEqual(UNAVAILABLE);
    } finally {
      await prisma.$disconnect();
      await raw.end();
    }
  });

  it('when the server ends the session under a running statement (57P01, as a restart does)', async () => {
    const prisma = createPrismaClient(db.url, 1);
    try {
      const [backend] = await prisma.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      const running = prisma.$queryRawUnsafe('SELECT pg_sleep(30)');
      const settled = running.catch(() => undefined);
      // Ended only once the statement runs, so it is the statement that fails (not a later one,
      // which the pool would send on a new connection).
      for (let active = false; !active;) {
        const rows = await db.raw.$queryRawUnsafe<unknown[]>(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
          backend!.pid,
        );
        active = rows.length > 0;
      }
      await db.raw.$queryRawUnsafe('SELECT pg_terminate_backend($1)', backend!.pid);
      expect(await codeOf(running)).toEqual(UNAVAILABLE);
      await settled;
    } finally {
      await prisma.$disconnect();
    }
  });

  it('while a statement that is itself wrong stays `internal`', async () => {
    await db.raw.$executeRaw`INSERT INTO t VALUES (1)`;
    const internal = { code: 'internal', status: 500, retryable: true };
    expect(await codeOf(db.raw.$executeRaw`INSERT INTO t VALUES (1)`)).toEqual(internal);
    expect(await codeOf(db.prisma.$executeRaw`INSERT INTO t VALUES (1)`)).toEqual(internal);
    expect(await codeOf(db.raw.$queryRawUnsafe('SELECT * FROM no_such_table'))).toEqual(internal);
  });
});
