import { baseEnv, parseEnv, z } from '@tidemark/config';

const schema = baseEnv.extend({
  DIFF_GRPC_LISTEN: z.string().default('127.0.0.1:50066'),
  /** Runs compared at once by this process (each loads pages of two runs). */
  DIFF_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Threads that run the project's selectors over stored pages (volatile_selectors, repointing). */
  DIFF_SELECTOR_THREADS: z.coerce.number().int().min(1).max(8).default(1),
  /** What one page's selectors may take on a thread before it is ended (docs/security.md). */
  DIFF_SELECTOR_BUDGET_MS: z.coerce.number().int().min(100).default(5000),
  /** A comparison not acked in this long goes to another worker. */
  DIFF_ACK_WAIT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
