import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asApiError } from '../../errors/src/index.js';
import { createPrismaClient, createRawDb } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../../testkit/src/index.js';

/** A loopback port nothing listens on (one the system gave out and took back). */
const closedPort = async (): Promise<number> => {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

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
    const url = `postgresql://postgres@127.0.0.1:${await closedPort()}/nowhere`;
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

  it('when the server ends the session (57P01, as a restart does)', async () => {
    const prisma = createPrismaClient(db.url, 1);
    try {
      const [backend] = await prisma.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      await db.raw.$queryRawUnsafe('SELECT pg_terminate_backend($1)', backend!.pid);
      expect(await codeOf(prisma.$queryRawUnsafe('SELECT 1'))).toEqual(UNAVAILABLE);
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
