import { randomBytes } from 'node:crypto';
import { createPrismaClient, createRawDb, type PrismaClient, type RawDb } from '@tidemark/db';
import pg from 'pg';
import { databaseUrl, TEST_INFRA } from './infra.js';

export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  /** Raw SQL on node-postgres, as the hot-path repositories take it. */
  raw: RawDb;
  drop(): Promise<void>;
}

const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: TEST_INFRA.adminDatabaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

/** A migrated database of this test file's own, copied from the template in milliseconds. */
export const createTestDatabase = async (): Promise<TestDatabase> => {
  const name = `tm_t_${Math.floor(Date.now() / 1000)}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEST_INFRA.templateDatabase}"`));
  const url = databaseUrl(name);
  const prisma = createPrismaClient(url, 5);
  const raw = createRawDb(url, 4);
  return {
    url,
    prisma,
    raw,
    drop: async () => {
      await prisma.$disconnect();
      await raw.end();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
};
