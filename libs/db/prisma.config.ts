// Prisma CLI config: migrations run through the schema engine compiled to WebAssembly that ships
// in the package, over the pg driver adapter, so no engine binary is ever downloaded.
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { defineConfig } from 'prisma/config';

/**
 * The schema engine's introspection chokes on PostgreSQL `name` and `char` columns (oids 19 and
 * 18; prisma/orm#27403). Migration connections report them as text (25); nothing else changes.
 */
class NameAsTextClient extends pg.Client {
  // pg's query() has many overloads (promise or callback, the pool uses the callback form);
  // this wrapper only rewrites the field types of a result on its way back.
  override query(...args: unknown[]): never {
    const retype = (result: pg.QueryResult | undefined) => {
      for (const field of result?.fields ?? []) {
        if (field.dataTypeID === 19 || field.dataTypeID === 18) field.dataTypeID = 25;
      }
      return result;
    };
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, result: pg.QueryResult) => callback(err, retype(result));
    }
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    return (out instanceof Promise ? out.then(retype) : out) as never;
  }
}

/**
 * The adapter runs a migration script by splitting it at every `;` — inside a function body or a
 * comment too — so a plpgsql trigger could not be migrated at all. Each script goes to PostgreSQL
 * whole instead: the simple query protocol takes several statements and runs them as one implicit
 * transaction, so a migration that fails half-way leaves nothing behind.
 */
class WholeScriptPg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const internals = adapter as unknown as { client: pg.Pool; onError(error: unknown): never };
    adapter.executeScript = async (script: string) => {
      try {
        await internals.client.query(script);
      } catch (error) {
        internals.onError(error);
      }
    };
    return adapter;
  }
}

// The schema reads env("DATABASE_URL"); unset, `prisma generate` falls back to downloading an
// engine. The default matches libs/config.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/tidemark';
const url = new URL(process.env.DATABASE_URL);

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  // Separate fields, not a connection string: given a string, the adapter's shadow database
  // would be the real database and a second `migrate dev` fails with P3006.
  adapter: async () =>
    new WholeScriptPg({
      Client: NameAsTextClient,
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1) || 'postgres'),
      idleTimeoutMillis: 500,
      allowExitOnIdle: true,
    }),
});
