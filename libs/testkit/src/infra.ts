import { randomBytes } from 'node:crypto';

/** Where the tests find the shared services (the machine's standard loopback ports). */
export const TEST_INFRA = {
  // Both are settled by jest-global-setup.mjs, which made the template.
  adminDatabaseUrl: process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  get templateDatabase(): string {
    const name = process.env.TM_TEST_TEMPLATE_DB;
    if (!name) throw new Error('no template database: run under jest (libs/testkit/jest-global-setup.mjs)');
    return name;
  },
  natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** A fresh namespace for one test file's NATS subjects and streams and Redis keys. */
export const uniquePrefix = (): string => `t${randomBytes(5).toString('hex')}`;

export const databaseUrl = (name: string): string => {
  const url = new URL(TEST_INFRA.adminDatabaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
