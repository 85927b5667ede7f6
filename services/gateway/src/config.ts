import { requireSecretsKey, secretsKeyEnv } from '@tidemark/secret-box';
import { baseEnv, grpcEnv, parseEnv, z } from '@tidemark/config';

const schema = baseEnv
  .merge(grpcEnv)
  .extend({
    GATEWAY_HOST: z.string().default('127.0.0.1'),
    /** 0 picks a free port (tests). */
    GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Largest JSON body accepted; beyond it 413 too_large. */
    GATEWAY_BODY_LIMIT: z.string().default('1mb'),
    /**
     * The origin `next` links start with (scheme, host and any path prefix before /v1); unset,
     * they are built from the request's own Host. Set it behind a proxy that rewrites Host.
     */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** A member's session lasts this long after its last use. */
    GATEWAY_SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** The web application's address: account e-mails (verify, reset, invite) link to it when set. */
    GATEWAY_APP_URL: z.string().url().optional(),
    /** Sign-up and password-reset requests per minute from one client address. */
    GATEWAY_AUTH_IP_RPM: z.coerce.number().int().min(1).default(30),
    /** Trust X-Forwarded-* from this many proxies (express "trust proxy"). */
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
    ...secretsKeyEnv,
  })
  .superRefine(requireSecretsKey);

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
