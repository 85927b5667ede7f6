import { requireSecretsKey, secretsKeyEnv } from '@tidemark/secret-box';
import { baseEnv, grpcEnv, parseEnv, z } from '@tidemark/config';
import { fetchGuardEnv } from '@tidemark/net-guard';

const schema = baseEnv
  .merge(grpcEnv)
  // The fetch guard's settings: a saved URL is judged as the services will judge it when sent.
  .merge(fetchGuardEnv)
  .extend({
    GATEWAY_HOST: z.string().default('127.0.0.1'),
    /** 0 picks a free port (tests). */
    GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Largest JSON body accepted; beyond it 413 too_large. */
    GATEWAY_BODY_LIMIT: z.string().default('1mb'),
    /**
     * The origin `next` links (and other links to the API) start with: scheme, host and any path
     * prefix before /v1. Required in production. Unset (development), links name the address the
     * gateway answered on; never the caller's Host header, which anyone can forge.
     */
    PUBLIC_BASE_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
      .refine((u) => !/[?#]/.test(u), 'no query or fragment: the origin and any path prefix only')
      .transform((u) => (u.endsWith('/') ? u.slice(0, -1) : u))
      .optional(),
    /** A member's session lasts this long after its last use. */
    GATEWAY_SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** The web application's address: account e-mails (verify, reset, invite) link to it when set. */
    GATEWAY_APP_URL: z.string().url().optional(),
    /** Sign-up and password-reset requests per minute from one client address. */
    GATEWAY_AUTH_IP_RPM: z.coerce.number().int().min(1).default(30),
    /**
     * Trust X-Forwarded-For/-Proto from this many proxies in front of the gateway (express "trust
     * proxy"): the client address the per-address limits count, and whether the request came
     * over https. 0 (off) locally; the Helm chart sets 1 (its ingress).
     */
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    ...secretsKeyEnv,
  })
  .superRefine((cfg, ctx) => {
    requireSecretsKey(cfg, ctx);
    if (cfg.NODE_ENV === 'production' && !cfg.PUBLIC_BASE_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_BASE_URL'],
        message: 'required in production (the origin links to the API start with, e.g. https://api.example.com)',
      });
  });

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
