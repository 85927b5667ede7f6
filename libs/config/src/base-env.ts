import { z } from 'zod';

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

/** Where each gRPC service listens and is reached. */
export const grpcEnv = z.object({
  BILLING_GRPC_URL: z.string().default('127.0.0.1:50061'),
  BROWSER_POOL_GRPC_URL: z.string().default('127.0.0.1:50062'),
  SCRAPE_GRPC_URL: z.string().default('127.0.0.1:50063'),
  MAP_GRPC_URL: z.string().default('127.0.0.1:50064'),
  CRAWL_GRPC_URL: z.string().default('127.0.0.1:50065'),
  DIFF_GRPC_URL: z.string().default('127.0.0.1:50066'),
  EXPORT_GRPC_URL: z.string().default('127.0.0.1:50067'),
  DELIVERY_GRPC_URL: z.string().default('127.0.0.1:50068'),
});

/**
 * The job watchdog every crawl, scrape and map worker runs: a job or run that has made no progress
 * for `JOB_STALL_MS` (default 30 minutes, far above the longest page: three rungs of at most
 * 120 s) is failed with the reason; it looks every `JOB_WATCHDOG_MS` (a minute).
 */
export const watchdogEnv = z.object({
  JOB_STALL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 60_000),
  JOB_WATCHDOG_MS: z.coerce.number().int().min(100).default(60_000),
});

/** What a job the watchdog ended says (its `error`). */
export const stalledReason = (stallMs: number): string => {
  const minutes = Math.round(stallMs / 60_000);
  const seconds = Math.round(stallMs / 1000);
  const span = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${seconds} seconds`;
  return `no progress for ${span}; the watchdog ended it`;
};
