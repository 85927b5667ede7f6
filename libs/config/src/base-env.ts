import { z } from 'zod';
import { allowNetworksSchema, hostMapSchema } from './fetch-guard.js';

/** What every service reads: where the shared infrastructure is and how to log. */
export const baseEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/tidemark'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefixes every subject and stream; tests give each file its own so they never share work. */
  NATS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/i, 'letters, digits and _ only')
    .default(''),
  /** Prefixes every Redis key, for the same reason. */
  REDIS_PREFIX: z.string().default('tm:'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The fetch guard's switch, read by every service that fetches a URL a user gave. */
export const fetchGuardEnv = z.object({
  FETCH_ALLOW_NETWORKS: allowNetworksSchema,
  FETCH_HOST_MAP: hostMapSchema,
});

/** Where each gRPC service listens and is reached. */
export const grpcEnv = z.object({
  BILLING_GRPC_URL: z.string().default('127.0.0.1:50061'),
  BROWSER_POOL_GRPC_URL: z.string().default('127.0.0.1:50062'),
  SCRAPE_GRPC_URL: z.string().default('127.0.0.1:50063'),
  MAP_GRPC_URL: z.string().default('127.0.0.1:50064'),
  CRAWL_GRPC_URL: z.string().default('127.0.0.1:50065'),
  DIFF_GRPC_URL: z.string().default('127.0.0.1:50066'),
  EXPORT_GRPC_URL: z.string().default('127.0.0.1:50067'),
});
