import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';

export * from './generated/prisma/client.js';

/** A Prisma client over the pg driver adapter (no engine binary). One per process is enough. */
export const createPrismaClient = (databaseUrl: string, poolSize = 10): PrismaClient =>
  new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
