import { requireSecretsKey, secretsKeyEnv } from '@tidemark/secret-box';
import { baseEnv, parseEnv, z } from '@tidemark/config';
import { fetchGuardEnv } from '@tidemark/net-guard';

const schema = baseEnv
  .merge(fetchGuardEnv)
  .extend({
    /** Where DeliveryService (gRPC) listens; the gateway dials DELIVERY_GRPC_URL. */
    DELIVERY_GRPC_LISTEN: z.string().default('127.0.0.1:50068'),
    /**
     * Multiplies every retry delay (1 m, 5 m, 30 m, 2 h, 6 h, 12 h): 1 in production; tests
     * compress the day-long schedule into seconds (0.0001 makes it about 7 s).
     */
    DELIVERY_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
    /** The receiver must answer within this (the spec: 10 s); no answer is retried. */
    DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** Sends in flight in this process, all receivers together. */
    DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
    /** Sends in flight to one receiver host in this process, so a slow one cannot take every slot. */
    DELIVERY_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** Longest sleep between two looks at the schedule (new rows in this process wake it at once). */
    DELIVERY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /** How long a claimed delivery is this worker's; past it another worker may send it. */
    DELIVERY_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
    /** Events handled at once by this process. */
    DELIVERY_EVENT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    ...secretsKeyEnv,
    /** `User-Agent` of every webhook and chat post: the webhook sender, version 1.0. */
    DELIVERY_USER_AGENT: z.string().default('Tidemark-Webhooks/1.0'),
    /** smtp://user:pass@host:port (or smtps://): the run e-mail goes out when set; else the inbox. */
    DELIVERY_SMTP_URL: z.string().url().optional(),
    DELIVERY_MAIL_FROM: z.string().default('Tidemark <notifications@tidemark.local>'),
    /** Time for one digest from a language-model connection. */
    DELIVERY_DIGEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  })
  .superRefine((cfg, ctx) => {
    requireSecretsKey(cfg, ctx);
    if (cfg.DELIVERY_LEASE_MS < cfg.DELIVERY_TIMEOUT_MS + 1000)
      ctx.addIssue({
        code: 'custom',
        path: ['DELIVERY_LEASE_MS'],
        message: 'must outlast DELIVERY_TIMEOUT_MS by a second at least',
      });
  });

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
