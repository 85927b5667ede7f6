import { baseEnv, grpcEnv, parseEnv, watchdogEnv, z } from '@tidemark/config';
import { fetchGuardEnv } from '@tidemark/net-guard';

const MB = 1024 * 1024;

const schema = baseEnv
  .merge(fetchGuardEnv)
  .merge(grpcEnv)
  .merge(watchdogEnv)
  .extend({
    MAP_GRPC_LISTEN: z.string().default('127.0.0.1:50064'),
    /** Map jobs this process runs at once (each reads its files one after another). */
    MAP_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** Its product token (TidemarkBot) picks the robots.txt group that applies to the map. */
    MAP_USER_AGENT: z.string().default('Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://tidemark.dev/bot)'),
    /** Largest file after gunzip: the sitemaps.org limit (50 MB); beyond it the file is cut. */
    MAP_MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(50 * MB),
    /** Largest file as it comes off the wire (before our gunzip). */
    MAP_MAX_COMPRESSED_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(50 * MB),
    /** Sitemap and feed files one map fetches at most (each read one costs a credit). */
    MAP_MAX_FILES: z.coerce.number().int().min(1).max(10_000).default(500),
    /** Levels of sitemap indexes followed (a robots.txt-declared sitemap is level 1). */
    MAP_MAX_DEPTH: z.coerce.number().int().min(1).max(20).default(6),
    /** Time for one file, headers to last byte. */
    MAP_FILE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Time for a whole map job; what was read by then is kept (stop: timeout). */
    MAP_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
    MAP_ACK_WAIT_MS: z.coerce.number().int().min(100).default(60_000),
  });

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
