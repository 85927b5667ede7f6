import { baseEnv, envBoolean, parseEnv, z } from '@tidemark/config';

const schema = baseEnv.pick({ LOG_LEVEL: true }).extend({
  AGENT_HOST: z.string().default('127.0.0.1'),
  /** 8091: the web application has 8090 (docs/decisions.md). 0 picks a free port (tests). */
  AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(8091),
  /** The REST API the tools call, as a user would (ends in /v1). */
  TIDEMARK_API_URL: z.string().url().default('http://127.0.0.1:8080/v1'),
  /** The key of a stdio connection (`pnpm --silent tidemark mcp`); HTTP connections bring their own. */
  TIDEMARK_API_KEY: z.string().min(1).optional(),
  /** A stdio connection approved read-only. */
  TIDEMARK_READ_ONLY: envBoolean.default(false),
  /** How long a tool asked to wait (a run, a crawl, a batch) waits before answering with the job as it is. */
  AGENT_WAIT_MAX_MS: z.coerce.number().int().min(1000).default(600_000),
  AGENT_POLL_MS: z.coerce.number().int().min(50).default(1000),
  /** An HTTP session unused this long is closed. */
  AGENT_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 60_000),
  AGENT_MAX_SESSIONS: z.coerce.number().int().min(1).default(1000),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
