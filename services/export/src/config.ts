import { baseEnv, parseEnv, z } from '@tidemark/config';

const schema = baseEnv.extend({
  EXPORT_GRPC_LISTEN: z.string().default('127.0.0.1:50067'),
  /** Rows read per query: what one step of an export holds in memory (bodies included). */
  EXPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(5000).default(200),
  /** Bytes per streamed message. */
  EXPORT_CHUNK_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(64 * 1024),
});

export type Config = z.infer<typeof schema>;
export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => parseEnv(schema, env);
