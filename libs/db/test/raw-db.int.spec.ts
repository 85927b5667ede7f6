import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JOB_COLUMNS, PAGE_COLUMNS, PROJECT_COLUMNS, Prisma, StatementNames } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../../testkit/src/index.js';

describe('RawDb: raw SQL on node-postgres, answered as Prisma answers it', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('reads and writes timestamps as UTC instants and int8 as BigInt, as Prisma does', async () => {
    const at = new Date('2026-11-23T03:04:05.678Z');
    await db.raw.$executeRaw`CREATE TABLE t (id int PRIMARY KEY, at timestamp(3), n bigint, tags text[], doc jsonb)`;
    await db.raw
      .$executeRaw`INSERT INTO t VALUES (1, ${at}, ${12345678901234n}, ${['a', null, 'c']}::text[], ${JSON.stringify({ k: 'v' })}::jsonb)`;
    const [raw] = await db.raw.$queryRaw<
      { at: Date; n: bigint; tags: (string | null)[]; doc: unknown }[]
    >`SELECT * FROM t`;
    const [viaPrisma] = await db.prisma.$queryRaw<(typeof raw)[]>`SELECT * FROM t`;
    expect(raw).toEqual({ id: 1, at, n: 12345678901234n, tags: ['a', null, 'c'], doc: { k: 'v' } });
    expect(raw).toEqual(viaPrisma);
    // Written by Prisma, read here: the same instant.
    await db.prisma.$executeRaw`UPDATE t SET at = ${new Date('2020-01-02T03:04:05.006Z')}`;
    const [again] = await db.raw.$queryRawUnsafe<{ at: Date }[]>('SELECT at FROM t WHERE id = $1', 1);
    expect(again!.at.toISOString()).toBe('2020-01-02T03:04:05.006Z');
  });

  it('takes Prisma.sql fragments and counts the rows a statement touched', async () => {
    const where = Prisma.sql`id = ${1}`;
    expect(await db.raw.$executeRaw(Prisma.sql`UPDATE t SET n = n + 1 WHERE ${where}`)).toBe(1);
    expect(await db.raw.$executeRawUnsafe('UPDATE t SET n = n + 1 WHERE id = $1', 99)).toBe(0);
  });

  it('commits a transaction that resolves and rolls back one that throws or runs too long', async () => {
    await db.raw.transaction((tx) => tx.$executeRaw`INSERT INTO t (id) VALUES (2)`);
    await expect(
      db.raw.transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO t (id) VALUES (3)`;
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await expect(
      db.raw.transaction(
        async (tx) => {
          await tx.$executeRaw`INSERT INTO t (id) VALUES (4)`;
          await new Promise((r) => setTimeout(r, 150));
          await tx.$executeRaw`INSERT INTO t (id) VALUES (5)`;
        },
        { timeoutMs: 50 },
      ),
    ).rejects.toThrow(/rolled back/);
    const ids = await db.raw.$queryRaw<{ id: number }[]>`SELECT id FROM t ORDER BY id`;
    expect(ids.map((r) => r.id)).toEqual([1, 2]);
    // A unique violation comes back as PostgreSQL said it, and the pool goes on.
    await expect(db.raw.$executeRaw`INSERT INTO t (id) VALUES (1)`).rejects.toMatchObject({ code: '23505' });
    expect(await db.raw.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('prepares a marked statement it runs again and again, once a connection, and answers it the same', async () => {
    const prepared = await db.raw.transaction(async (tx) => {
      const answers: unknown[] = [];
      for (let i = 0; i < 5; i++)
        answers.push(
          await tx.$queryRaw<{ n: string }[]>`/* prepared */ SELECT id, n::text FROM t WHERE id = ${1 + (i % 2)}`,
        );
      // Not marked, or no parameters: never named (such a text may hold several statements).
      for (let i = 0; i < 5; i++) await tx.$queryRaw`SELECT id FROM t WHERE id = ${i}`;
      for (let i = 0; i < 5; i++) await tx.$queryRaw`/* prepared */ SELECT 1 AS one`;
      const names = await tx.$queryRaw<{ name: string; statement: string }[]>`
        SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'tm\_%'`;
      return { answers, names };
    });
    expect(prepared.answers[0]).toEqual([{ id: 1, n: '12345678901235' }]);
    expect(prepared.answers[2]).toEqual(prepared.answers[0]);
    expect(prepared.answers[3]).toEqual(prepared.answers[1]);
    expect(prepared.names.map((p) => p.statement)).toEqual(['/* prepared */ SELECT id, n::text FROM t WHERE id = $1']);
  });

  it('names at most 256 statements, each only after its third run', () => {
    const names = new StatementNames();
    const text = '/* prepared */ SELECT $1';
    expect(names.nameOf(text, [1])).toBeUndefined();
    expect(names.nameOf(text, [1])).toBeUndefined();
    const name = names.nameOf(text, [1]);
    expect(name).toMatch(/^tm_[0-9a-f]{24}$/);
    expect(names.nameOf(text, [2])).toBe(name);
    for (let run = 0; run < 3; run++) expect(names.nameOf('SELECT $1', [1])).toBeUndefined();
    const named = new Set<string>();
    for (let i = 0; i < 400; i++)
      for (let run = 0; run < 3; run++) {
        const n = names.nameOf(`/* prepared */ SELECT $1 + ${i}`, [1]);
        if (n) named.add(n);
      }
    expect(named.size).toBe(255);
    expect(names.nameOf(text, [1])).toBe(name);
  });

  it('runs a first statement with BEGIN, inside the transaction', async () => {
    const lockKey = 424242;
    const heldInside = await db.raw.transaction(
      async (tx) => {
        const [row] = await tx.$queryRaw<{ held: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${lockKey}
                          AND pid = pg_backend_pid() AND granted) AS held`;
        await tx.$executeRaw`INSERT INTO t (id) VALUES (6)`;
        return row!.held;
      },
      { first: `SELECT pg_advisory_xact_lock(${lockKey})` },
    );
    expect(heldInside).toBe(true);
    // Committed, and the lock gone with the transaction.
    expect(await db.raw.$queryRaw`SELECT id FROM t WHERE id = 6`).toEqual([{ id: 6 }]);
    const [free] = await db.raw.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ${lockKey}`;
    expect(free!.n).toBe(0);
    // A first statement that fails rolls the transaction back.
    await expect(
      db.raw.transaction((tx) => tx.$executeRaw`INSERT INTO t (id) VALUES (7)`, { first: 'SELECT 1/0' }),
    ).rejects.toThrow(/division by zero/);
    expect(await db.raw.$queryRaw`SELECT id FROM t WHERE id = 7`).toEqual([]);
  });

  it('reads under the first statement in the same round trip, its rows parsed as $queryRaw parses them', async () => {
    const lockKey = 434343;
    await db.prisma.workspace.create({ data: { id: 'ws_read', name: 'read' } });
    await db.prisma.job.create({
      data: { id: 'job_read', workspaceId: 'ws_read', kind: 'crawl', progress: { done: 2, total: 5, queued: 3 } },
    });
    const query = `SELECT ${JOB_COLUMNS.text} FROM job WHERE id = 'job_read'`;
    const [read, separately, held] = await db.raw.transaction(
      async (tx, rows) => {
        const [lock] = await tx.$queryRaw<{ held: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${lockKey}
                          AND pid = pg_backend_pid() AND granted) AS held`;
        return [rows, await tx.$queryRawUnsafe<unknown[]>(query), lock!.held];
      },
      { first: `SELECT pg_advisory_xact_lock(${lockKey})`, read: query },
    );
    expect(held).toBe(true);
    expect(read).toHaveLength(1);
    // Timestamps as Dates, json parsed, as the extended protocol answers them.
    expect(read).toEqual(separately);
    expect((read[0] as { createdAt: unknown }).createdAt).toBeInstanceOf(Date);
    expect((read[0] as { progress: unknown }).progress).toEqual({ done: 2, total: 5, queued: 3 });
    // Without a read, fn is handed no rows.
    expect(await db.raw.transaction(async (_tx, rows) => rows, { first: 'SELECT 1' })).toEqual([]);
  });

  it('reads a page, a job and a project with PAGE_COLUMNS, JOB_COLUMNS and PROJECT_COLUMNS as Prisma reads them', async () => {
    // Every column set, bytes included: a column the lists miss (or misname) fails here.
    await db.prisma.workspace.create({ data: { id: 'ws_cols', name: 'cols' } });
    const job = await db.prisma.job.create({
      data: {
        id: 'job_cols',
        workspaceId: 'ws_cols',
        kind: 'scrape',
        progress: { done: 1, total: 2, queued: 1 },
        creditsUsed: 3,
        counts: { ok: 1 },
        stop: 'limit',
        error: { message: 'm' },
        requestId: 'req_1',
        request: { url: 'https://example.com/' },
        secret: 'sealed',
        result: { totals: 1 },
      },
    });
    const page = await db.prisma.page.create({
      data: {
        id: 'pg_cols',
        workspaceId: 'ws_cols',
        jobId: job.id,
        position: 4,
        url: 'https://example.com/a',
        status: 'done',
        httpStatus: 200,
        verdict: 'ok',
        errorCode: 'NONE',
        tier: 'http',
        credits: 1,
        data: { signals: ['x'] },
        bodies: new Uint8Array([0x1f, 0x8b, 0, 255]),
        screenshot: new Uint8Array([0x89, 0x50]),
        crawledAt: new Date('2026-11-23T01:02:03.004Z'),
        attempt: 2,
      },
    });
    const [rawPage] = await db.raw.$queryRaw<unknown[]>`SELECT ${PAGE_COLUMNS} FROM page WHERE id = ${page.id}`;
    const [rawJob] = await db.raw.$queryRaw<unknown[]>`SELECT ${JOB_COLUMNS} FROM job WHERE id = ${job.id}`;
    expect(rawPage).toEqual(await db.prisma.page.findUniqueOrThrow({ where: { id: page.id } }));
    expect(rawJob).toEqual(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } }));
    const project = await db.prisma.project.create({
      data: {
        id: 'prj_cols',
        workspaceId: 'ws_cols',
        name: 'Cols',
        seed: 'https://example.com/',
        host: 'example.com',
        schedule: 'daily',
        retention: '30d',
        config: { scope: { limit: 5 } },
        configVersion: 3,
        ephemeral: true,
      },
    });
    const [rawProject] = await db.raw.$queryRaw<
      unknown[]
    >`SELECT ${PROJECT_COLUMNS} FROM project WHERE id = ${project.id}`;
    expect(rawProject).toEqual(await db.prisma.project.findUniqueOrThrow({ where: { id: project.id } }));
  });
});
