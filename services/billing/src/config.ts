import { baseEnv, parseEnv, z } from '@tidemark/config';

const schema = baseEnv.extend({
  /** host:port the gRPC server binds; port 0 picks a free one (tests). */
  BILLING_GRPC_LISTEN: z.string().default('127.0.0.1:50061'),
  /** How long the welcome worker may hold a message before NATS hands it to another worker. */
  BILLING_ACK_WAIT_MS: z.coerce.number().int().min(100).default(30_000),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
