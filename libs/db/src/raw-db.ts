import { createHash } from 'node:crypto';
import pg from 'pg';
import { Prisma } from './generated/prisma/client.js';

/**
 * The raw-SQL half of Prisma's client, the same four methods with the same signatures, so a
 * repository written against it runs on Prisma or on `RawDb` alike.
 */
export interface RawSql {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

type Run = (text: string, values: unknown[]) => Promise<pg.QueryResult>;

/**
 * What a statement's text starts with to be prepared (see StatementNames): a statement run for
 * every page whose best plan does not depend on its values.
 */
export const PREPARED_MARK = '/* prepared */';
/** A statement is named once it has run this often: what runs once a crawl is not kept. */
const NAME_AFTER = 3;
/** Most statements one process names (each connection keeps what it prepared until it closes). */
const MAX_NAMED = 256;
/** Most texts counted toward a name; past it the count starts over. */
const MAX_COUNTED = 2048;

/**
 * Names the statements marked PREPARED_MARK that a process runs again and again, so each
 * connection has the server parse and analyse them once, and, after five runs, plan them once
 * for every value when that plan is estimated as good (a prepared statement) instead of on every
 * run: planning was a quarter of PostgreSQL's time a crawled page. Opt-in, because that one plan
 * can be worse: the frontier's link growth and dispatch, whose best plans depend on how many URLs
 * a step carries and on the run's own rows, ran at twice their time on it
 * (docs/performance.md, ninth round). The name is a digest of the text; names are bounded by
 * MAX_NAMED, past which statements run unnamed as before. Only statements with parameters are
 * named: a text without them may hold several statements, which a prepared statement cannot.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private counted = new Map<string, number>();

  nameOf(text: string, values: unknown[]): string | undefined {
    if (!values.length || !text.startsWith(PREPARED_MARK)) return undefined;
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= MAX_NAMED) return name;
    const runs = (this.counted.get(text) ?? 0) + 1;
    if (runs < NAME_AFTER) {
      if (this.counted.size >= MAX_COUNTED) this.counted = new Map();
      this.counted.set(text, runs);
      return undefined;
    }
    this.counted.delete(text);
    const named = `tm_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, named);
    return named;
  }
}

/** A statement run on `on`, named when `names` says so. */
const runOn =
  (on: pg.Pool | pg.PoolClient, names: StatementNames): Run =>
  (text, values) => {
    const name = names.nameOf(text, values);
    const params = values.map(param);
    return name ? on.query({ name, text, values: params }) : on.query(text, params);
  };

/** What Prisma's driver adapter would send for a value: timestamps in UTC, bigints as text. */
const param = (v: unknown): unknown => {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(param);
  return v;
};

const sqlOf = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql =>
  query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);

/** The four methods over one way of running a statement (the pool, or a transaction's client). */
const rawSqlOver = (run: Run): RawSql => ({
  async $queryRaw<T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
    const sql = sqlOf(query, values);
    return (await run(sql.text, sql.values)).rows as T;
  },
  async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
    const sql = sqlOf(query, values);
    return (await run(sql.text, sql.values)).rowCount ?? 0;
  },
  async $queryRawUnsafe<T>(query: string, ...values: unknown[]) {
    return (await run(query, values)).rows as T;
  },
  async $executeRawUnsafe(query: string, ...values: unknown[]) {
    return (await run(query, values)).rowCount ?? 0;
  },
});

// Results read the way Prisma answers them: `timestamp` columns (Prisma's DateTime, UTC without a
// zone) as the UTC instant, whatever the process's time zone; int8 as BigInt; bytea as a
// Uint8Array (pg's own parser makes a Buffer, which compares unequal to what Prisma reads).
const TIMESTAMP = 1114;
const INT8 = 20;
const BYTEA = 17;
const parseBytea = pg.types.getTypeParser(BYTEA) as (v: string) => Buffer;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === TIMESTAMP)
      return (v: string) => (/^\d{4}-/.test(v) ? new Date(`${v.replace(' ', 'T')}Z`) : new Date(NaN));
    if (oid === INT8) return (v: string) => BigInt(v);
    if (oid === BYTEA && format !== 'binary')
      return (v: string) => {
        const b = parseBytea(v);
        return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      };
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export interface TransactionOptions {
  /** Past this its statements fail and it rolls back (default 30 s). */
  timeoutMs?: number;
  /**
   * A statement without parameters sent with BEGIN, in one round trip (a lock the transaction
   * takes first). Its text is the caller's own, never a value from outside.
   */
  first?: string;
  /**
   * A query without parameters sent in the same round trip after `first` (what the transaction
   * reads under that lock); its rows are handed to `fn`. Its text is the caller's own.
   */
  read?: string;
}

export class TransactionTimedOut extends Error {
  constructor(ms: number) {
    super(`the transaction ran past ${ms} ms and was rolled back`);
    this.name = 'TransactionTimedOut';
  }
}

/**
 * Raw SQL straight on node-postgres, for the statements a crawl runs for every page. Prisma's
 * client passes even `$queryRaw` through its query engine (an interpreter and a WebAssembly
 * compiler), which was the largest share of a crawl's main-thread CPU (docs/performance.md);
 * here a statement costs what pg costs. Everything else keeps using Prisma.
 */
export class RawDb implements RawSql {
  private readonly sql: RawSql;
  private readonly names = new StatementNames();

  constructor(private readonly pool: pg.Pool) {
    // An idle connection the server ends (a restart, an administrator, a dropped database) is
    // dropped by the pool and the next statement opens another; unheard, its 'error' event
    // would end the process.
    pool.on('error', () => undefined);
    this.sql = rawSqlOver(runOn(pool, this.names));
  }

  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T> {
    return this.sql.$queryRaw<T>(query, ...values);
  }
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number> {
    return this.sql.$executeRaw(query, ...values);
  }
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return this.sql.$queryRawUnsafe<T>(query, ...values);
  }
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return this.sql.$executeRawUnsafe(query, ...values);
  }

  /**
   * Runs `fn` in a transaction on one connection: committed when it resolves, rolled back when
   * it throws. Past `timeoutMs` its statements fail and it rolls back (as Prisma's interactive
   * transactions do), so a stuck step cannot hold its locks for ever.
   */
  async transaction<T>(fn: (tx: RawSql, read: unknown[]) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const client = await this.pool.connect();
    let expired = false;
    const timer = setTimeout(() => (expired = true), timeoutMs);
    const onClient = runOn(client, this.names);
    const run: Run = (text, values) =>
      expired ? Promise.reject(new TransactionTimedOut(timeoutMs)) : onClient(text, values);
    let broken: unknown = undefined;
    try {
      // The first statement and the read go in BEGIN's round trip (one simple query: no parameters).
      const head = ['BEGIN', opts.first, opts.read].filter(Boolean).join('; ');
      const answered = (await client.query(head)) as pg.QueryResult | pg.QueryResult[];
      const read = opts.read ? ((Array.isArray(answered) ? answered.at(-1)?.rows : answered.rows) ?? []) : [];
      const result = await fn(rawSqlOver(run), read);
      if (expired) throw new TransactionTimedOut(timeoutMs);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => (broken = rollbackErr));
      throw err;
    } finally {
      clearTimeout(timer);
      // A connection whose rollback failed is in an unknown state: it leaves the pool.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  private ended: Promise<void> | null = null;

  /** Closes the pool; a second call waits for the first (a service stopped twice). */
  end(): Promise<void> {
    return (this.ended ??= this.pool.end());
  }
}

/** A pool of its own beside Prisma's (connections are opened as statements need them). */
export const createRawDb = (databaseUrl: string, poolSize = 6): RawDb =>
  new RawDb(
    new pg.Pool({
      connectionString: databaseUrl,
      max: poolSize,
      connectionTimeoutMillis: 30_000,
      idleTimeoutMillis: 30_000,
      types,
    }),
  );
