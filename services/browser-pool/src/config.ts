import { baseEnv, envBoolean, parseEnv, z } from '@tidemark/config';
import { fetchGuardEnv } from '@tidemark/net-guard';

/** BROWSER_EXITS: comma-separated `http://user:pass@host:port` proxy URLs (the residential exits). */
const exitsSchema = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const out: URL[] = [];
    for (const item of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      let url: URL | undefined;
      try {
        url = new URL(item);
      } catch {
        url = undefined;
      }
      if (!url || url.protocol !== 'http:' || !url.hostname || !url.port) {
        // Never echo the item: it carries the exit's credentials.
        ctx.addIssue({ code: 'custom', message: `exit #${out.length + 1} is not http://user:pass@host:port` });
        continue;
      }
      out.push(url);
    }
    return out;
  });

const schema = baseEnv.extend({
  ...fetchGuardEnv.shape,
  /** host:port the gRPC server binds; port 0 picks a free one (tests). */
  BROWSER_POOL_GRPC_LISTEN: z.string().default('127.0.0.1:50062'),
  BROWSER_EXECUTABLE: z.string().default('/usr/bin/chromium'),
  /** Warm Chromium processes kept running. */
  BROWSER_POOL_BROWSERS: z.coerce.number().int().min(1).max(32).default(2),
  /** Renders in flight per browser; browsers × tabs bounds the pool, the rest wait in a queue. */
  BROWSER_POOL_TABS_PER_BROWSER: z.coerce.number().int().min(1).max(32).default(4),
  /** A browser is closed and relaunched after this many renders, to bound its memory. */
  BROWSER_POOL_RECYCLE_AFTER: z.coerce.number().int().min(1).default(200),
  /**
   * Renders one browser context (a lane: context + page + proxy listener) serves, wiped between
   * them, before it is replaced; 1 gives every render a fresh context (slow on small machines).
   */
  BROWSER_POOL_CONTEXT_REUSE: z.coerce.number().int().min(1).default(50),
  /** Default page timeout when a request gives none (navigation + waits). */
  BROWSER_RENDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * Largest serialized DOM a render answers (10 MB, the http rung's SCRAPE_MAX_BODY_BYTES by
   * default): scripts can build a page far larger than what the server sent.
   */
  BROWSER_MAX_HTML_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /**
   * Largest screenshot a render answers (16 MB); a larger one is omitted and the answer says why
   * (screenshot_omitted), the page itself is still answered.
   */
  BROWSER_MAX_SCREENSHOT_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(16 * 1024 * 1024),
  BROWSER_EXITS: exitsSchema,
  BROWSER_HEADLESS: envBoolean.default(true),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
