import { fileURLToPath } from 'node:url';
import { baseEnv, parseEnv, z } from '@tidemark/config';

const schema = baseEnv.pick({ LOG_LEVEL: true }).extend({
  WEB_HOST: z.string().default('127.0.0.1'),
  /** The app's own port, beside the API's 8080; 0 picks a free one (tests). */
  WEB_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** The gateway's origin: `/v1/*` is proxied there (scheme, host and port; no path). */
  WEB_API_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** The built application (`pnpm --filter @tidemark/web build` writes it). */
  WEB_DIST_DIR: z.string().default(fileURLToPath(new URL('../dist', import.meta.url))),
  /** Milliseconds a proxied request may take before the app is told the API did not answer. */
  WEB_PROXY_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
