import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { crawlRequestSchema } from '@tidemark/contracts';
import { createPrismaClient, createRawDb, newId, type PrismaClient, type RawDb } from '@tidemark/db';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { resolveCrawl } from '../src/crawl/crawl-options.js';
import { normalizeUrl } from '../src/frontier/normalize-url.js';
import { CrawlJobRepository, type CrawlJob } from '../src/repositories/crawl-job.repository.js';
import {
  FrontierRepository,
  SETTLE_SQL,
  type FrontierRow,
  type NewUrl,
  type PageCursor,
  type Settled,
  type Tx,
} from '../src/repositories/frontier.repository.js';

/**
 * The durable frontier on a real PostgreSQL: the advisory lock the crawl workers share, and each
 * statement the engine builds its steps from (engine/dispatcher.ts, result-settler.ts, seeder.ts,
 * crawl-engine.ts). Every test works in a run of its own, created as the crawl service creates
 * one (job, run, hidden project). The whole suite runs twice, in a UTC session and in one whose
 * time zone is far from UTC: the columns hold UTC without a zone, whatever the server's setting.
 */

const MINUTE = 60_000;

/** A URL as the dispatcher hands it to `add`: keyed by the crawl's normalized spelling. */
const link = (url: string, over: Partial<NewUrl> = {}): NewUrl => {
  const key = normalizeUrl(url)!;
  return {
    key,
    url,
    host: new URL(key).host,
    depth: 1,
    foundVia: 'link',
    firstReferer: null,
    inSitemap: false,
    ...over,
  };
};

const result = (position: number, attempt: number, over: Partial<Settled> = {}): Settled & { position: number } => ({
  position,
  attempt,
  verdict: 'ok',
  errorCode: 'OK',
  httpStatus: 200,
  outLinks: 3,
  ...over,
});

/** A latch a test opens when it chooses. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

/** What PostgreSQL knows of a large run's frontier when a statement is planned. */
type Statistics = 'none' | 'a row count only' | 'from when the run was small';

/**
 * A run as a 100,000-page crawl's is in the middle of its crawl, alone in a database of its own:
 * 30,000 URLs done, 10 in flight, 69,990 queued, one host; never vacuumed by autovacuum, and by
 * default never analyzed (the planner's defaults, as a frontier is while it grows). `statistics`
 * gives the planner other beliefs: a row count and no column statistics (a VACUUM), or the
 * statistics of the same run when it held ten URLs.
 */
const inLargeRun = async <T>(
  fn: (large: { prisma: PrismaClient; raw: RawDb; runId: string }) => Promise<T>,
  statistics: Statistics = 'none',
) => {
  const own = await createTestDatabase();
  const prisma = createPrismaClient(own.url, 2);
  const raw = createRawDb(own.url, 1);
  try {
    const workspaceId = newId('ws');
    const request = crawlRequestSchema.parse({ url: 'http://site.test/' });
    await prisma.workspace.create({ data: { id: workspaceId, name: 'frontier' } });
    const { job } = await new CrawlJobRepository(prisma, raw).create({
      workspaceId,
      seed: 'http://site.test/',
      config: resolveCrawl(request).config,
      request,
      requestId: null,
      secret: null,
    });
    await prisma.$executeRawUnsafe('ALTER TABLE crawl_url SET (autovacuum_enabled = false)');
    await prisma.$executeRawUnsafe(
      `INSERT INTO crawl_url (run_id, url_key, url, host, position, depth, found_via, state)
       SELECT $1, 'http://site.test/p/' || i, 'http://site.test/p/' || i, 'site.test', i, 1, 'link',
              CASE WHEN i < 30000 THEN 'done' WHEN i < 30010 THEN 'dispatched' ELSE 'queued' END
         FROM generate_series(0, $2::int - 1) AS i`,
      job.runId,
      statistics === 'from when the run was small' ? 10 : 100_000,
    );
    if (statistics === 'from when the run was small') {
      await prisma.$executeRawUnsafe('ANALYZE crawl_url');
      await prisma.$executeRawUnsafe(
        `INSERT INTO crawl_url (run_id, url_key, url, host, position, depth, found_via, state)
         SELECT $1, 'http://site.test/p/' || i, 'http://site.test/p/' || i, 'site.test', i, 1, 'link',
                CASE WHEN i < 30000 THEN 'done' WHEN i < 30010 THEN 'dispatched' ELSE 'queued' END
           FROM generate_series(10, 99999) AS i`,
        job.runId,
      );
      await prisma.$executeRawUnsafe(
        `UPDATE crawl_url SET state = 'done' WHERE run_id = $1 AND position < 10`,
        job.runId,
      );
    }
    if (statistics === 'a row count only') await prisma.$executeRawUnsafe('VACUUM crawl_url');
    return await fn({ prisma, raw, runId: job.runId });
  } finally {
    await prisma.$disconnect();
    await raw.end();
    await own.drop();
  }
};

describe.each(['UTC', 'America/Los_Angeles'])('FrontierRepository (session time zone %s)', (timeZone) => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let raw: RawDb;
  let frontier: FrontierRepository;
  let jobs: CrawlJobRepository;
  const workspaceId = newId('ws');

  beforeAll(async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    url.searchParams.set('options', `-c TimeZone=${timeZone}`);
    prisma = createPrismaClient(url.toString(), 6);
    raw = createRawDb(url.toString(), 4);
    await prisma.workspace.create({ data: { id: workspaceId, name: 'frontier' } });
    jobs = new CrawlJobRepository(prisma, raw);
    frontier = new FrontierRepository(prisma, raw);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await raw?.end();
    await db?.drop();
  });

  /** A crawl's run, made as the crawl service makes one. */
  const newRun = async (seed = 'http://site.test/'): Promise<string> => {
    const request = crawlRequestSchema.parse({ url: seed });
    const { job } = await jobs.create({
      workspaceId,
      seed,
      config: resolveCrawl(request).config,
      request,
      requestId: null,
      secret: null,
    });
    return job.runId;
  };

  /** A run whose frontier holds these URLs (positions 0…n-1 in this order). */
  const runWith = async (...urls: NewUrl[]): Promise<string> => {
    const runId = await newRun();
    await frontier.locked(runId, (tx) => frontier.add(tx, runId, urls, urls.length));
    return runId;
  };

  /** One step under the run's lock: it waits for the lock, so it always runs (never null). */
  const step = async <T>(runId: string, fn: (tx: Tx) => Promise<T>): Promise<T> =>
    (await frontier.locked(runId, fn)) as T;

  const rowsOf = async (runId: string) => prisma.crawlUrl.findMany({ where: { runId }, orderBy: { position: 'asc' } });

  /** The sessions of this database waiting for an advisory lock. */
  const advisoryWaiters = async () => {
    const [row] = await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`;
    return row!.n;
  };
  const untilWaiting = async (n: number) => {
    for (let i = 0; i < 400; i++) {
      if ((await advisoryWaiters()) >= n) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no session came to wait for the run's lock`);
  };

  it('talks to PostgreSQL in the session time zone this suite names', async () => {
    const [row] = await prisma.$queryRaw<{ tz: string }[]>`SELECT current_setting('TimeZone') AS tz`;
    expect(row!.tz).toBe(timeZone);
  });

  describe('locked', () => {
    it('serializes two steps on one run: the second starts after the first commits, and sees its rows', async () => {
      const runId = await newRun();
      const order: string[] = [];
      const inside = gate();
      const release = gate();
      const first = frontier.locked(runId, async (tx) => {
        order.push('first in');
        await frontier.add(tx, runId, [link('http://site.test/a')], 10);
        inside.open();
        await release.opened;
        order.push('first out');
        return 'first';
      });
      await inside.opened;
      const second = frontier.locked(runId, async (tx) => {
        order.push('second in');
        const seen = await frontier.size(tx, runId);
        // Its position follows the first step's row: the two never race on positions.
        await frontier.add(tx, runId, [link('http://site.test/b')], 10);
        return seen;
      });
      await untilWaiting(1);
      expect(order).toEqual(['first in']);
      release.open();
      await expect(Promise.all([first, second])).resolves.toEqual(['first', 1]);
      expect(order).toEqual(['first in', 'first out', 'second in']);
      expect((await rowsOf(runId)).map((r) => [r.url, r.position])).toEqual([
        ['http://site.test/a', 0],
        ['http://site.test/b', 1],
      ]);
    });

    it('with tryOnly, answers null without running the step while the lock is held, and runs it once free', async () => {
      const runId = await newRun();
      const inside = gate();
      const release = gate();
      const holder = frontier.locked(runId, async () => {
        inside.open();
        await release.opened;
        return 'held';
      });
      await inside.opened;
      let ran = 0;
      const step = async () => {
        ran++;
        return 'ticked';
      };
      await expect(frontier.locked(runId, step, true)).resolves.toBeNull();
      expect(ran).toBe(0);
      release.open();
      await expect(holder).resolves.toBe('held');
      await expect(frontier.locked(runId, step, true)).resolves.toBe('ticked');
      expect(ran).toBe(1);
    });

    it("locks one run only: another run's step goes ahead while the first is held", async () => {
      const held = await newRun();
      const other = await newRun();
      const inside = gate();
      const release = gate();
      const holder = frontier.locked(held, async () => {
        inside.open();
        await release.opened;
      });
      await inside.opened;
      await expect(frontier.locked(other, async () => 'other ran', true)).resolves.toBe('other ran');
      await expect(
        frontier.locked(other, (tx) => frontier.add(tx, other, [link('http://site.test/x')], 1)),
      ).resolves.toEqual({ added: 1, overflow: 0 });
      release.open();
      await holder;
    });

    it('rolls back a step that throws, and frees the lock for the next one', async () => {
      const runId = await newRun();
      await expect(
        frontier.locked(runId, async (tx) => {
          await frontier.add(tx, runId, [link('http://site.test/lost')], 1);
          throw new Error('the step failed');
        }),
      ).rejects.toThrow('the step failed');
      expect(await rowsOf(runId)).toEqual([]);
      await expect(frontier.locked(runId, (tx) => frontier.size(tx, runId), true)).resolves.toBe(0);
    });
  });

  describe('add', () => {
    it('adds URLs in the order given, their positions following the last one', async () => {
      const runId = await newRun();
      await expect(
        frontier.locked(runId, (tx) =>
          frontier.add(
            tx,
            runId,
            [
              link('http://site.test/', { depth: 0, foundVia: 'seed' }),
              link('http://site.test/b'),
              link('http://site.test/a'),
            ],
            10,
          ),
        ),
      ).resolves.toEqual({ added: 3, overflow: 0 });
      await frontier.locked(runId, (tx) =>
        frontier.add(tx, runId, [link('http://other.test/c', { depth: 2, foundVia: 'sitemap', inSitemap: true })], 10),
      );
      const rows = await rowsOf(runId);
      expect(rows.map((r) => [r.position, r.url, r.host, r.depth, r.foundVia, r.inSitemap, r.state])).toEqual([
        [0, 'http://site.test/', 'site.test', 0, 'seed', false, 'queued'],
        [1, 'http://site.test/b', 'site.test', 1, 'link', false, 'queued'],
        [2, 'http://site.test/a', 'site.test', 1, 'link', false, 'queued'],
        [3, 'http://other.test/c', 'other.test', 2, 'sitemap', true, 'queued'],
      ]);
      expect(rows.every((r) => r.attempts === 0 && r.inLinks === 0 && r.notBefore === null)).toBe(true);
    });

    it('takes a URL once by its normalized key, keeping the first spelling and the first referer', async () => {
      const runId = await runWith(link('http://site.test/docs/?b=2&a=1#top', { firstReferer: 'http://site.test/' }));
      const again = await frontier.locked(runId, (tx) =>
        frontier.add(
          tx,
          runId,
          [
            link('http://SITE.test/docs?a=1&b=2', { firstReferer: 'http://site.test/later' }),
            link('http://site.test/new', { firstReferer: 'http://site.test/later' }),
          ],
          10,
        ),
      );
      expect(again).toEqual({ added: 1, overflow: 0 });
      const rows = await rowsOf(runId);
      expect(rows.map((r) => [r.position, r.urlKey, r.url, r.firstReferer])).toEqual([
        [0, 'http://site.test/docs?a=1&b=2', 'http://site.test/docs/?b=2&a=1#top', 'http://site.test/'],
        [1, 'http://site.test/new', 'http://site.test/new', 'http://site.test/later'],
      ]);
    });

    it('takes a key named twice in one call once, the first spelling (the seed again in url_list, /a and /a/)', async () => {
      const runId = await newRun();
      const added = await frontier.locked(runId, (tx) =>
        frontier.add(
          tx,
          runId,
          [
            link('http://site.test/a', { depth: 0, foundVia: 'seed' }),
            link('http://site.test/a', { url: 'http://site.test/a/', depth: 0, foundVia: 'seed' }),
            link('http://site.test/b'),
          ],
          10,
        ),
      );
      expect(added).toEqual({ added: 2, overflow: 0 });
      expect((await rowsOf(runId)).map((r) => [r.position, r.url])).toEqual([
        [0, 'http://site.test/a'],
        [1, 'http://site.test/b'],
      ]);
    });

    it('keeps at most `room` new URLs and counts the rest as overflow; known URLs are neither', async () => {
      const runId = await runWith(link('http://site.test/known'));
      const found = ['/known', '/p1', '/p2', '/p3', '/p4'].map((p) => link(`http://site.test${p}`));
      await expect(frontier.locked(runId, (tx) => frontier.add(tx, runId, found, 2))).resolves.toEqual({
        added: 2,
        overflow: 2,
      });
      expect((await rowsOf(runId)).map((r) => r.url)).toEqual([
        'http://site.test/known',
        'http://site.test/p1',
        'http://site.test/p2',
      ]);
      // No room left (or less than none): everything new overflows, nothing is written.
      for (const room of [0, -3])
        await expect(frontier.locked(runId, (tx) => frontier.add(tx, runId, found, room))).resolves.toEqual({
          added: 0,
          overflow: 2,
        });
      await expect(frontier.locked(runId, (tx) => frontier.add(tx, runId, [], 5))).resolves.toEqual({
        added: 0,
        overflow: 0,
      });
      expect(await rowsOf(runId)).toHaveLength(3);
    });

    it("grows a step's links in one statement exactly as add and countInLinks do one after the other", async () => {
      const before = [link('http://site.test/known'), link('http://site.test/other', { depth: 2 })];
      const found = [
        link('http://site.test/known'),
        link('http://site.test/n1', { firstReferer: 'http://site.test/known' }),
        link('http://site.test/n1/', { url: 'http://site.test/n1/' }),
        link('http://site.test/n2', { depth: 3, foundVia: 'sitemap', inSitemap: true }),
        link('http://site.test/n3'),
      ];
      const inLinks = new Map([
        [before[0]!.key, 2],
        [before[1]!.key, 1],
        [found[1]!.key, 3],
        [found[3]!.key, 1],
        [found[4]!.key, 5],
        [normalizeUrl('http://site.test/never')!, 4],
      ]);
      for (const room of [10, 2, 0]) {
        const stepwise = await runWith(...before);
        const oneStatement = await runWith(...before);
        const a = await step(stepwise, async (tx) => {
          const grown = await frontier.add(tx, stepwise, found, room);
          await frontier.countInLinks(tx, stepwise, inLinks);
          return grown;
        });
        const b = await step(oneStatement, (tx) => frontier.grow(tx, oneStatement, found, room, inLinks));
        expect(b).toEqual(a);
        const shape = async (runId: string) =>
          (await rowsOf(runId)).map(({ runId: _r, dispatchedAt: _d, ...row }) => row);
        expect(await shape(oneStatement)).toEqual(await shape(stepwise));
      }
      // In-links alone (every link already known) and nothing at all.
      const runId = await runWith(...before);
      await expect(
        step(runId, (tx) => frontier.grow(tx, runId, [], 5, new Map([[before[0]!.key, 1]]))),
      ).resolves.toEqual({ added: 0, overflow: 0 });
      await expect(step(runId, (tx) => frontier.grow(tx, runId, [], 5, new Map()))).resolves.toEqual({
        added: 0,
        overflow: 0,
      });
      expect((await rowsOf(runId)).map((r) => r.inLinks)).toEqual([1, 0]);
    });

    it('counts in-links in place: a row keeps its page when its count changes (a HOT update)', async () => {
      // 400 rows fill several pages of the table. On a page written full, a row's new version goes
      // to another page and each of the table's four indexes gains an entry for it. A settled pull
      // counts links to a tenth or so of a frontier's rows, as each pass here does.
      const urls = Array.from({ length: 400 }, (_, i) => link(`http://site.test/article/${i}-a-long-enough-slug`));
      const runId = await runWith(...urls);
      const blocks = async () =>
        prisma.$queryRaw<{ key: string; block: string }[]>`
          SELECT url_key AS key, split_part(trim(both '()' from ctid::text), ',', 1) AS block
            FROM crawl_url WHERE run_id = ${runId} ORDER BY position`;
      const before = await blocks();
      expect(new Set(before.map((b) => b.block)).size).toBeGreaterThan(4);
      for (const pass of [0, 1]) {
        const linked = urls.filter((_, i) => i % 10 === pass);
        await step(runId, (tx) => frontier.grow(tx, runId, [], 0, new Map(linked.map((u) => [u.key, 1]))));
        expect(await blocks()).toEqual(before);
      }
      expect((await rowsOf(runId)).map((r) => r.inLinks)).toEqual(urls.map((_, i) => (i % 10 < 2 ? 1 : 0)));
    });

    it('stores a link spelled with a NUL character, cleaned of it', async () => {
      const runId = await newRun();
      const spelled = link('http://site.test/nul', {
        url: 'http://site.test/n\0ul',
        firstReferer: 'http://site.test/\0',
      });
      await expect(frontier.locked(runId, (tx) => frontier.add(tx, runId, [spelled], 1))).resolves.toEqual({
        added: 1,
        overflow: 0,
      });
      expect((await rowsOf(runId)).map((r) => [r.url, r.firstReferer])).toEqual([
        ['http://site.test/nul', 'http://site.test/'],
      ]);
    });

    it('keeps runs apart: one URL may be in two runs', async () => {
      const a = await runWith(link('http://site.test/shared'));
      const b = await runWith(link('http://site.test/shared'));
      expect((await rowsOf(a)).map((r) => r.position)).toEqual([0]);
      expect((await rowsOf(b)).map((r) => r.position)).toEqual([0]);
    });
  });

  describe('nextQueued', () => {
    it('hands out breadth-first (depth, then discovery) for links, and sitemap URLs first for sitemap_first', async () => {
      const runId = await runWith(
        link('http://site.test/', { depth: 0, foundVia: 'seed' }),
        link('http://site.test/deep', { depth: 2 }),
        link('http://site.test/listed', { depth: 1, foundVia: 'sitemap', inSitemap: true }),
        link('http://site.test/one', { depth: 1 }),
        link('http://site.test/listed-too', { depth: 1, foundVia: 'sitemap', inSitemap: true }),
        // Deeper than a sitemap's URLs are found (SITEMAP_DEPTH): goes with the others, never lost.
        link('http://site.test/listed-deep', { depth: 2, inSitemap: true }),
      );
      const next = (order: 'links' | 'sitemap_first', take: number) =>
        frontier.locked(runId, async (tx) => (await frontier.nextQueued(tx, runId, order, take)).map((r) => r.url));
      expect(await next('links', 10)).toEqual([
        'http://site.test/',
        'http://site.test/listed',
        'http://site.test/one',
        'http://site.test/listed-too',
        'http://site.test/deep',
        'http://site.test/listed-deep',
      ]);
      expect(await next('sitemap_first', 10)).toEqual([
        'http://site.test/listed',
        'http://site.test/listed-too',
        'http://site.test/',
        'http://site.test/one',
        'http://site.test/deep',
        'http://site.test/listed-deep',
      ]);
      expect(await next('links', 2)).toEqual(['http://site.test/', 'http://site.test/listed']);
      expect(await next('sitemap_first', 3)).toEqual([
        'http://site.test/listed',
        'http://site.test/listed-too',
        'http://site.test/',
      ]);
    });

    it('answers the row as stored, and leaves out URLs no longer queued', async () => {
      const runId = await runWith(
        link('http://site.test/a', { firstReferer: 'http://site.test/' }),
        link('http://site.test/b'),
        link('http://site.test/c'),
      );
      const rows = await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0]);
        await frontier.markDispatched(tx, runId, [1]);
        await frontier.settleMany(tx, runId, [result(1, 0)]);
        return frontier.nextQueued(tx, runId, 'links', 10);
      });
      expect(rows).toEqual([
        {
          url: 'http://site.test/c',
          urlKey: 'http://site.test/c',
          host: 'site.test',
          position: 2,
          depth: 1,
          state: 'queued',
          foundVia: 'link',
          firstReferer: null,
          inSitemap: false,
          inLinks: 0,
          outLinks: null,
          attempts: 0,
          doneAt: null,
          verdict: null,
          errorCode: null,
          httpStatus: null,
        },
      ]);
    });

    it('holds back a requeued URL until its not-before time has come', async () => {
      const runId = await runWith(
        link('http://site.test/later', { depth: 0 }),
        link('http://site.test/now', { depth: 1 }),
        link('http://site.test/fresh', { depth: 2 }),
      );
      const queued = await step(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]);
        expect(await frontier.requeue(tx, runId, 0, new Date(Date.now() + 10 * MINUTE))).toBe(true);
        expect(await frontier.requeue(tx, runId, 1, new Date(Date.now() - MINUTE))).toBe(true);
        return frontier.nextQueued(tx, runId, 'links', 10);
      });
      expect(queued.map((r) => [r.url, r.attempts])).toEqual([
        ['http://site.test/now', 1],
        ['http://site.test/fresh', 0],
      ]);
    });
  });

  describe('markDispatched and inFlight', () => {
    it('counts the pages in flight per host, and each dispatch as an attempt', async () => {
      const runId = await runWith(
        link('http://a.test/1'),
        link('http://a.test/2'),
        link('http://b.test/1'),
        link('http://b.test/2'),
        link('http://c.test/1'),
      );
      const before = Date.now();
      const inFlight = await frontier.locked(runId, async (tx) => {
        expect(await frontier.inFlight(tx, runId)).toEqual(new Map());
        await frontier.markDispatched(tx, runId, [0, 1, 2]);
        return frontier.inFlight(tx, runId);
      });
      expect(inFlight).toEqual(
        new Map([
          ['a.test', 2],
          ['b.test', 1],
        ]),
      );
      const rows = await rowsOf(runId);
      expect(rows.map((r) => [r.state, r.attempts])).toEqual([
        ['dispatched', 1],
        ['dispatched', 1],
        ['dispatched', 1],
        ['queued', 0],
        ['queued', 0],
      ]);
      // dispatched_at is UTC, whatever the session's zone: within a minute of this machine's clock.
      for (const r of rows.slice(0, 3)) expect(Math.abs(r.dispatchedAt!.getTime() - before)).toBeLessThan(MINUTE);

      // A settled page leaves the count; a second dispatch is a second attempt.
      const after = await frontier.locked(runId, async (tx) => {
        await frontier.settleMany(tx, runId, [result(0, 0)]);
        await frontier.requeue(tx, runId, 1, new Date(Date.now() - 1000));
        await frontier.markDispatched(tx, runId, [1]);
        return frontier.inFlight(tx, runId);
      });
      expect(after).toEqual(
        new Map([
          ['a.test', 1],
          ['b.test', 1],
        ]),
      );
      expect((await frontier.locked(runId, (tx) => frontier.at(tx, runId, 1)))!.attempts).toBe(2);
    });

    it('hands out, in one statement, the queued URLs that may go: per host, waiting hosts, and in all', async () => {
      const runId = await runWith(
        link('http://a.test/1'),
        link('http://a.test/2', { depth: 2 }),
        link('http://b.test/1', { depth: 1 }),
        link('http://c.test/1'),
        link('http://a.test/3', { depth: 3 }),
        link('http://d.test/1', { depth: 1 }),
      );
      const urls = (d: { picked: { url: string }[] }) => d.picked.map((r) => r.url);
      const [first, second, third, fourth] = await step(runId, async (tx) => [
        // One a host, d.test waiting on a clock, three in all: crawl order (depth, then position).
        await frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 3, perHost: 1, waitingHosts: ['d.test'] }),
        // Each host but d.test has its one page in flight.
        await frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 10, perHost: 1, waitingHosts: ['d.test'] }),
        // Two a host now: a.test has one more place, b.test and c.test have nothing queued.
        await frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 10, perHost: 2, waitingHosts: [] }),
        await frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 10, perHost: 5, waitingHosts: [] }),
      ]);
      expect(first).toEqual({
        inFlight: 0,
        picked: [
          {
            url: 'http://a.test/1',
            host: 'a.test',
            position: 0,
            attempts: 0,
            foundVia: 'link',
            dispatchedBefore: false,
          },
          {
            url: 'http://b.test/1',
            host: 'b.test',
            position: 2,
            attempts: 0,
            foundVia: 'link',
            dispatchedBefore: false,
          },
          {
            url: 'http://c.test/1',
            host: 'c.test',
            position: 3,
            attempts: 0,
            foundVia: 'link',
            dispatchedBefore: false,
          },
        ],
      });
      expect(second).toEqual({ inFlight: 3, picked: [] });
      expect(third.inFlight).toBe(3);
      expect(urls(third)).toEqual(['http://d.test/1', 'http://a.test/2']);
      expect(fourth).toEqual({
        inFlight: 5,
        picked: [
          {
            url: 'http://a.test/3',
            host: 'a.test',
            position: 4,
            attempts: 0,
            foundVia: 'link',
            dispatchedBefore: false,
          },
        ],
      });
      // What went out is dispatched, its attempt counted; the answer said the attempt it is.
      const flying = await step(runId, (tx) => frontier.inFlight(tx, runId));
      expect(flying).toEqual(
        new Map([
          ['a.test', 3],
          ['b.test', 1],
          ['c.test', 1],
          ['d.test', 1],
        ]),
      );
      expect((await step(runId, (tx) => frontier.at(tx, runId, 0)))!.attempts).toBe(1);
    });

    describe("the queue's start (Run.queueFrom…)", () => {
      const startOf = async (runId: string) => {
        const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
        return [run.queueFromDepth, run.queueFromPosition];
      };
      const dispatch = (runId: string, perHost = 10) =>
        step(runId, async (tx) =>
          (await frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 2, perHost, waitingHosts: [] })).picked.map(
            (r) => r.url,
          ),
        );

      it('moves on to the first URL queued as the dispatches hand the queue out, and is read from there', async () => {
        const runId = await runWith(
          link('http://site.test/', { depth: 0 }),
          link('http://site.test/a'),
          link('http://site.test/b'),
          link('http://site.test/c', { depth: 2 }),
          link('http://site.test/d', { depth: 2 }),
        );
        expect(await startOf(runId)).toEqual([0, 0]);
        expect(await dispatch(runId)).toEqual(['http://site.test/', 'http://site.test/a']);
        // It may lag a step (the URLs handed out by the statement that moved it), never lead.
        expect(await startOf(runId)).toEqual([0, 0]);
        await step(runId, (tx) => frontier.settleMany(tx, runId, [result(0, 0), result(1, 0)]));
        expect(await dispatch(runId)).toEqual(['http://site.test/b', 'http://site.test/c']);
        expect(await startOf(runId)).toEqual([1, 2]);
        await step(runId, (tx) => frontier.settleMany(tx, runId, [result(2, 0), result(3, 0)]));
        expect(await dispatch(runId)).toEqual(['http://site.test/d']);
        expect(await startOf(runId)).toEqual([2, 4]);
      });

      it('moves back for a URL queued before it: a link found at a shallower depth, a page put back in the queue', async () => {
        const runId = await runWith(link('http://site.test/a'), link('http://site.test/deep', { depth: 3 }));
        expect(await dispatch(runId, 1)).toEqual(['http://site.test/a']);
        await step(runId, (tx) => frontier.settleMany(tx, runId, [result(0, 0)]));
        expect(await dispatch(runId, 1)).toEqual(['http://site.test/deep']);
        expect(await startOf(runId)).toEqual([3, 1]);
        // A late page of depth 1 links a URL of depth 2: before the start.
        await step(runId, (tx) =>
          frontier.grow(tx, runId, [link('http://site.test/late', { depth: 2 })], 10, new Map()),
        );
        expect(await startOf(runId)).toEqual([2, 2]);
        expect(await dispatch(runId)).toEqual(['http://site.test/late']);
        // /deep answered RATE_LIMITED: back in the queue, its time come.
        await step(runId, (tx) => frontier.settleMany(tx, runId, [result(2, 0)]));
        await dispatch(runId); // nothing queued: the start stays where it was
        await step(runId, (tx) => frontier.requeue(tx, runId, 1, new Date(Date.now() - 1000)));
        expect(await startOf(runId)).toEqual([2, 2]);
        expect(await dispatch(runId)).toEqual(['http://site.test/deep']);
        // Added by add (the seeder's statement) before the start: moves it back too.
        await step(runId, (tx) => frontier.add(tx, runId, [link('http://site.test/listed', { depth: 0 })], 10));
        expect(await startOf(runId)).toEqual([0, 3]);
      });

      it("is kept for sitemap_first too: the sitemap's URLs and then the others are read from it, in their order", async () => {
        const runId = await runWith(
          link('http://site.test/', { depth: 0, foundVia: 'seed' }),
          link('http://site.test/s1', { foundVia: 'sitemap', inSitemap: true }),
          link('http://site.test/s2', { foundVia: 'sitemap', inSitemap: true }),
          link('http://site.test/s3', { foundVia: 'sitemap', inSitemap: true }),
          link('http://site.test/s4', { foundVia: 'sitemap', inSitemap: true }),
          link('http://site.test/one'),
        );
        const sitemapFirst = () =>
          step(runId, async (tx) =>
            (
              await frontier.dispatchNext(tx, runId, 'sitemap_first', { maxInFlight: 2, perHost: 10, waitingHosts: [] })
            ).picked.map((r) => r.position),
          );
        const settle = (...positions: number[]) =>
          step(runId, (tx) =>
            frontier.settleMany(
              tx,
              runId,
              positions.map((p) => result(p, 0)),
            ),
          );
        expect(await sitemapFirst()).toEqual([1, 2]);
        // The seed, first in (depth, position), is still queued: the start stays before it.
        expect(await startOf(runId)).toEqual([0, 0]);
        await settle(1, 2);
        expect(await sitemapFirst()).toEqual([3, 4]);
        await settle(3, 4);
        // The sitemap's URLs are out: the others, breadth-first, from the start.
        expect(await sitemapFirst()).toEqual([0, 5]);
        await settle(0, 5);
        // A late sitemap URL queued behind the seed's place moves the start back and goes first.
        await step(runId, (tx) =>
          frontier.add(tx, runId, [link('http://site.test/s5', { foundVia: 'sitemap', inSitemap: true })], 10),
        );
        await step(runId, (tx) =>
          frontier.grow(tx, runId, [link('http://site.test/deep', { depth: 2 })], 10, new Map()),
        );
        expect(await sitemapFirst()).toEqual([6, 7]);
        expect(await startOf(runId)).toEqual([1, 6]);
        await settle(6, 7);
        // Read from the start: with the start put past a queued sitemap URL (as a fault elsewhere
        // would leave it), the one after it goes first; the one before waits for the re-read from
        // the run's first URL once nothing can go and nothing is in flight.
        await step(runId, (tx) =>
          frontier.add(
            tx,
            runId,
            ['http://site.test/s6', 'http://site.test/s7'].map((u) =>
              link(u, { foundVia: 'sitemap', inSitemap: true }),
            ),
            10,
          ),
        );
        await prisma.run.update({ where: { id: runId }, data: { queueFromDepth: 1, queueFromPosition: 9 } });
        const one = () =>
          step(runId, async (tx) =>
            (
              await frontier.dispatchNext(tx, runId, 'sitemap_first', { maxInFlight: 1, perHost: 10, waitingHosts: [] })
            ).picked.map((r) => r.position),
          );
        expect(await one()).toEqual([9]);
        expect(await one()).toEqual([]);
        await settle(9);
        expect(await one()).toEqual([8]);
      });

      it('hands out a URL queued before it that did not move it back, once nothing else can go', async () => {
        const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
        // As a fault elsewhere would leave it: the start past a queued URL.
        await prisma.run.update({ where: { id: runId }, data: { queueFromDepth: 1, queueFromPosition: 1 } });
        expect(await dispatch(runId, 1)).toEqual(['http://site.test/b']);
        // /b is in flight: /a waits, late (the start is not read past while work is out).
        expect(await dispatch(runId, 5)).toEqual([]);
        await step(runId, (tx) => frontier.settleMany(tx, runId, [result(1, 0)]));
        expect(await dispatch(runId, 5)).toEqual(['http://site.test/a']);
        expect(await startOf(runId)).toEqual([1, 0]);
      });
    });

    it('a URL sent again says its next attempt, and a queued URL whose time has not come stays', async () => {
      const runId = await runWith(link('http://a.test/1'), link('http://a.test/2'));
      const again = await step(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]);
        await frontier.requeue(tx, runId, 0, new Date(Date.now() - 1000));
        await frontier.requeue(tx, runId, 1, new Date(Date.now() + 60_000));
        return frontier.dispatchNext(tx, runId, 'links', { maxInFlight: 10, perHost: 10, waitingHosts: [] });
      });
      expect(again).toEqual({
        inFlight: 0,
        picked: [
          {
            url: 'http://a.test/1',
            host: 'a.test',
            position: 0,
            attempts: 1,
            foundVia: 'link',
            dispatchedBefore: true,
          },
        ],
      });
    });

    it.each<Statistics>(['none', 'a row count only', 'from when the run was small'])(
      'reads only the head of a large queue, in crawl order, whatever the statistics say (%s)',
      async (statistics) => {
        // Filtered by the hosts in flight inside the scan, the dispatch's plan read and sorted all
        // 69,990 queued URLs on each step of a 100,000-page crawl (20–40 ms a step).
        const reads = await inLargeRun(async ({ prisma: ownPrisma, raw: ownRaw, runId }) => {
          const own = new FrontierRepository(ownPrisma, ownRaw);
          /** Rows the statement read from crawl_url, by sequential scan and through indexes. */
          const dispatchReading = async (perHost: number, order: 'links' | 'sitemap_first' = 'links') =>
            (await own.locked(runId, async (tx) => {
              const counters = async () =>
                (
                  await tx.$queryRawUnsafe<{ seq: number; fetched: number; planner: string }[]>(
                    `SELECT seq_scan::int AS seq, idx_tup_fetch::int AS fetched,
                            current_setting('enable_seqscan') || current_setting('enable_bitmapscan') ||
                              current_setting('enable_sort') || current_setting('jit') AS planner
                       FROM pg_stat_xact_user_tables WHERE relname = 'crawl_url'`,
                  )
                )[0]!;
              const before = await counters();
              const { picked } = await own.dispatchNext(tx, runId, order, {
                maxInFlight: 64,
                perHost,
                waitingHosts: [],
              });
              const after = await counters();
              return {
                picked: picked.map((r) => r.position),
                seq: after.seq - before.seq,
                // The plan settings the statement used are back to the server's after it.
                plannerKept: after.planner === before.planner,
                fetched: after.fetched - before.fetched,
              };
            }))!;
          // The only host at its limit: nothing may go, and the queue is not searched for a URL that may.
          const full = await dispatchReading(10);
          // Room for ten more: the next ten in crawl order.
          const room = await dispatchReading(20);
          // sitemap_first: seeds not fetched yet, then 30,000 URLs a sitemap listed (as seeder.ts
          // adds them, before any link found on a page), then links: the sitemap's go first.
          await ownPrisma.$executeRawUnsafe(
            `UPDATE crawl_url SET depth = 0 WHERE run_id = $1 AND position BETWEEN 30030 AND 30099`,
            runId,
          );
          await ownPrisma.$executeRawUnsafe(
            `UPDATE crawl_url SET in_sitemap = true WHERE run_id = $1 AND position BETWEEN 30100 AND 59999`,
            runId,
          );
          const listed = await dispatchReading(30, 'sitemap_first');
          return { full, room, listed };
        }, statistics);
        expect(reads.full).toMatchObject({ picked: [], seq: 0 });
        for (const r of [reads.full, reads.room, reads.listed]) expect(r.plannerKept).toBe(true);
        expect(reads.room.picked).toEqual(Array.from({ length: 10 }, (_, i) => 30010 + i));
        expect(reads.room.seq).toBe(0);
        expect(reads.listed.picked).toEqual(Array.from({ length: 10 }, (_, i) => 30100 + i));
        expect(reads.listed.seq).toBe(0);
        // The window (four URLs a place, 64 places) and the rows in flight, not the queue; for
        // sitemap_first also the 70 seeds passed over on the way to the sitemap's URLs.
        for (const r of [reads.full, reads.room]) expect(r.fetched).toBeLessThanOrEqual(64 * 4 + 40);
        expect(reads.listed.fetched).toBeLessThanOrEqual(64 * 4 + 40 + 70);
      },
    );
  });

  describe("a crawl's robots.txt, kept with its run", () => {
    it('is written once with the run and read back, NULs and all, while the job state never holds it', async () => {
      const runId = await newRun();
      const job = (await prisma.job.findFirstOrThrow({ where: { runId } })) as CrawlJob;
      const robotsTxt = `User-agent: *\nDisallow: /private\u0000\n# ${'x'.repeat(100_000)}`;
      await step(runId, (tx) => jobs.saveRobots(tx, runId, { robotsTxt, robotsStatus: 200 }));
      const read = await step(runId, (tx) => jobs.robotsOf(tx, job));
      expect(read).toEqual({ robotsTxt: robotsTxt.replace('\u0000', ''), robotsStatus: 200 });
      // A step's job update writes the state whole: robots.txt is not in it.
      const after = await step(runId, async (tx) =>
        jobs.update(tx, (await jobs.lockedView(tx, job.id))!, { state: {} }),
      );
      expect(JSON.stringify(after.result)).not.toContain('Disallow');
    });

    it('reads a crawl started before robots.txt moved to the run from its state', async () => {
      const runId = await newRun();
      const job = (await prisma.job.findFirstOrThrow({ where: { runId } })) as CrawlJob;
      const legacy = {
        ...job,
        result: { ...(job.result as object), robotsTxt: 'User-agent: *\nDisallow: /old', robotsStatus: 200 },
      };
      expect(await step(runId, (tx) => jobs.robotsOf(tx, legacy))).toEqual({
        robotsTxt: 'User-agent: *\nDisallow: /old',
        robotsStatus: 200,
      });
      // Neither: no robots.txt was read (robots not respected, no sitemap).
      expect(await step(runId, (tx) => jobs.robotsOf(tx, job))).toEqual({ robotsTxt: '', robotsStatus: 0 });
    });
  });

  it("refreshes the planner's statistics of the frontier (FrontierStatistics says when)", async () => {
    await runWith(link('http://site.test/a'), link('http://site.test/b'));
    const analyzed = async () =>
      (
        await prisma.$queryRaw<{ n: number }[]>`
          SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'crawl_url'`
      )[0]!.n;
    const before = await analyzed();
    await frontier.analyze();
    // The statistics collector reports a moment later.
    for (let i = 0; i < 100 && (await analyzed()) === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await analyzed()).toBe(before + 1);
  });

  describe('settleMany', () => {
    it('settles a dispatched page once, with its verdict, and answers the rows it settled', async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
      const before = Date.now();
      const settled = await step(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]);
        return frontier.settleMany(tx, runId, [
          result(0, 0),
          result(1, 0, { verdict: 'blocked', errorCode: 'NOT_FOUND', httpStatus: 404, outLinks: 0 }),
        ]);
      });
      expect(
        settled.map((r) => [r.position, r.state, r.verdict, r.errorCode, r.httpStatus, r.outLinks]).sort(),
      ).toEqual([
        [0, 'done', 'ok', 'OK', 200, 3],
        [1, 'done', 'blocked', 'NOT_FOUND', 404, 0],
      ]);
      for (const r of settled) expect(Math.abs(r.doneAt!.getTime() - before)).toBeLessThan(MINUTE);

      // The same results again (a redelivered message): nothing settles, nothing changes.
      const again = await frontier.locked(runId, (tx) =>
        frontier.settleMany(tx, runId, [result(0, 0, { verdict: 'thin', httpStatus: 203 }), result(1, 0)]),
      );
      expect(again).toEqual([]);
      const rows = await rowsOf(runId);
      expect(rows.map((r) => [r.verdict, r.httpStatus, r.doneAt?.getTime()])).toEqual(
        settled.sort((a, b) => a.position - b.position).map((r) => [r.verdict, r.httpStatus, r.doneAt!.getTime()]),
      );
      await expect(frontier.locked(runId, (tx) => frontier.settleMany(tx, runId, []))).resolves.toEqual([]);
    });

    it("finds a step's pages by their position on the plan PostgreSQL keeps for every value, however many URLs wait", async () => {
      // The statement is prepared: after five runs PostgreSQL may plan it once for every value.
      // That plan must not read the run's queued URLs: a 100,000-page crawl (one run in its
      // database, 70,000 URLs queued) slowed as they grew, 36 ms a step.
      const plan = await inLargeRun(async ({ prisma: ownPrisma, runId }) =>
        ownPrisma.$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = force_generic_plan`);
          await tx.$executeRawUnsafe(
            `PREPARE settle_probe(text, int[], text[], text[], int[], int[], int[]) AS ${SETTLE_SQL}`,
          );
          const lines = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
            `EXPLAIN (COSTS OFF) EXECUTE settle_probe('${runId}', '{30001,30002}', '{ok,ok}', '{OK,OK}', '{200,200}', '{1,1}', '{0,0}')`,
          );
          await tx.$executeRawUnsafe('DEALLOCATE settle_probe');
          return lines.map((l) => l['QUERY PLAN']).join('\n');
        }),
      );
      expect(plan).toContain('crawl_url_run_id_position_key');
      expect(plan).not.toMatch(/run_id_state/);
    });

    it('settles a queued page whose dispatch was published by a step that never committed', async () => {
      // The dispatcher publishes attempt = the row's attempts before markDispatched; the step
      // rolled back, so the row is still queued with that many attempts.
      const runId = await runWith(link('http://site.test/a'));
      const settled = await step(runId, (tx) => frontier.settleMany(tx, runId, [result(0, 0)]));
      expect(settled.map((r) => [r.position, r.state])).toEqual([[0, 'done']]);
    });

    it('leaves a requeued page alone when the result answers an older attempt', async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
      const settled = await step(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]); // attempts 1; the messages said attempt 0
        await frontier.requeue(tx, runId, 0, new Date(Date.now() + MINUTE)); // rate limited: queued again
        return frontier.settleMany(tx, runId, [
          result(0, 0, { verdict: 'blocked', errorCode: 'RATE_LIMITED', httpStatus: 429 }),
          result(1, 0),
        ]);
      });
      expect(settled.map((r) => r.position)).toEqual([1]);
      const [a] = await rowsOf(runId);
      expect([a!.state, a!.attempts, a!.verdict, a!.doneAt]).toEqual(['queued', 1, null, null]);
      // Its own next dispatch (published as attempt 1) is what settles it.
      const later = await step(runId, async (tx) => {
        expect(await frontier.settleMany(tx, runId, [result(0, 0)])).toEqual([]);
        return frontier.settleMany(tx, runId, [result(0, 1)]);
      });
      expect(later.map((r) => [r.position, r.state, r.attempts])).toEqual([[0, 'done', 1]]);
    });
  });

  describe('requeue', () => {
    it('puts a dispatched page back in the queue, keeping its attempts and setting not_before', async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
      const notBefore = new Date(Date.now() + 30_000);
      await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]);
        await frontier.settleMany(tx, runId, [result(1, 0)]);
        expect(await frontier.requeue(tx, runId, 0, notBefore)).toBe(true);
        // Only a dispatched page goes back: not a queued one, a settled one, or none at all.
        expect(await frontier.requeue(tx, runId, 0, notBefore)).toBe(false);
        expect(await frontier.requeue(tx, runId, 1, notBefore)).toBe(false);
        expect(await frontier.requeue(tx, runId, 99, notBefore)).toBe(false);
      });
      const [a, b] = await rowsOf(runId);
      expect([a!.state, a!.attempts, a!.notBefore?.getTime()]).toEqual(['queued', 1, notBefore.getTime()]);
      expect([b!.state, b!.notBefore]).toEqual(['done', null]);
    });
  });

  describe('waitingOnSite', () => {
    it('is true while a queued URL waits for a time the site named, and only then', async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
      const waiting = () => frontier.locked(runId, (tx) => frontier.waitingOnSite(tx, runId));
      expect(await waiting()).toBe(false);
      await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1]);
        await frontier.requeue(tx, runId, 1, new Date(Date.now() - 1000));
      });
      expect(await waiting()).toBe(false);
      await frontier.locked(runId, (tx) => frontier.requeue(tx, runId, 0, new Date(Date.now() + 2 * MINUTE)));
      expect(await waiting()).toBe(true);
      // Once that URL is no longer queued, nothing waits on the site.
      await frontier.locked(runId, (tx) => frontier.cancelQueued(tx, runId));
      expect(await waiting()).toBe(false);
    });
  });

  describe('stale', () => {
    it('answers dispatched pages unanswered for longer than asked, and no others', async () => {
      const runId = await runWith(
        link('http://site.test/lost'),
        link('http://site.test/recent'),
        link('http://site.test/queued'),
        link('http://site.test/done'),
      );
      await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [0, 1, 3]);
        await frontier.settleMany(tx, runId, [result(3, 0)]);
      });
      // Page 0 and the settled page 3 went out ten minutes ago.
      const tenMinutesAgo = new Date(Date.now() - 10 * MINUTE);
      await prisma.crawlUrl.updateMany({
        where: { runId, position: { in: [0, 3] } },
        data: { dispatchedAt: tenMinutesAgo },
      });
      const stale = (ms: number) =>
        frontier.locked(runId, async (tx) => (await frontier.stale(tx, runId, ms)).map((r) => [r.url, r.attempts]));
      expect(await stale(5 * MINUTE)).toEqual([['http://site.test/lost', 1]]);
      expect(await stale(15 * MINUTE)).toEqual([]);
    });
  });

  describe('dropOpen and cancelQueued', () => {
    const fourStates = async () => {
      const runId = await runWith(
        link('http://site.test/q1'),
        link('http://site.test/q2'),
        link('http://site.test/d1'),
        link('http://site.test/done'),
      );
      await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [2, 3]);
        await frontier.settleMany(tx, runId, [result(3, 0)]);
      });
      return runId;
    };
    const states = async (runId: string) => (await rowsOf(runId)).map((r) => r.state);

    it('drops queued URLs as unfetched, counting them, and leaves pages in flight', async () => {
      const runId = await fourStates();
      await expect(frontier.locked(runId, (tx) => frontier.dropOpen(tx, runId))).resolves.toEqual({
        queued: 2,
        dispatched: 0,
      });
      expect(await states(runId)).toEqual(['unfetched', 'unfetched', 'dispatched', 'done']);
      await expect(frontier.locked(runId, (tx) => frontier.dropOpen(tx, runId))).resolves.toEqual({
        queued: 0,
        dispatched: 0,
      });
    });

    it('with dispatched, drops pages in flight too, each counted by what it was', async () => {
      const runId = await fourStates();
      await expect(frontier.locked(runId, (tx) => frontier.dropOpen(tx, runId, true))).resolves.toEqual({
        queued: 2,
        dispatched: 1,
      });
      expect(await states(runId)).toEqual(['unfetched', 'unfetched', 'unfetched', 'done']);
      await expect(frontier.locked(runId, (tx) => frontier.openCount(tx, runId))).resolves.toBe(0);
    });

    it('cancels queued URLs only, answering how many', async () => {
      const runId = await fourStates();
      await expect(frontier.locked(runId, (tx) => frontier.cancelQueued(tx, runId))).resolves.toBe(2);
      expect(await states(runId)).toEqual(['cancelled', 'cancelled', 'dispatched', 'done']);
      await expect(frontier.locked(runId, (tx) => frontier.cancelQueued(tx, runId))).resolves.toBe(0);
    });

    it('touches no other run', async () => {
      const runId = await fourStates();
      const other = await fourStates();
      await frontier.locked(runId, (tx) => frontier.dropOpen(tx, runId, true));
      await frontier.locked(runId, (tx) => frontier.cancelQueued(tx, runId));
      expect(await states(other)).toEqual(['queued', 'queued', 'dispatched', 'done']);
    });
  });

  describe('openCount and size', () => {
    it('counts URLs queued or in flight, and every row for the size', async () => {
      const runId = await runWith(
        link('http://site.test/q'),
        link('http://site.test/d'),
        link('http://site.test/done'),
        link('http://site.test/cancelled'),
      );
      const counts = () =>
        frontier.locked(runId, async (tx) => [await frontier.openCount(tx, runId), await frontier.size(tx, runId)]);
      expect(await counts()).toEqual([4, 4]);
      await frontier.locked(runId, async (tx) => {
        await frontier.markDispatched(tx, runId, [1, 2]);
        await frontier.settleMany(tx, runId, [result(2, 0)]);
      });
      expect(await counts()).toEqual([3, 4]);
      await prisma.crawlUrl.update({ where: { runId_position: { runId, position: 3 } }, data: { state: 'cancelled' } });
      expect(await counts()).toEqual([2, 4]);
    });
  });

  describe('countInLinks and markInSitemap', () => {
    it('adds in-links to the keys the frontier holds, call after call, and ignores the others', async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'));
      const a = normalizeUrl('http://site.test/a')!;
      const b = normalizeUrl('http://site.test/b')!;
      await frontier.locked(runId, async (tx) => {
        await frontier.countInLinks(
          tx,
          runId,
          new Map([
            [a, 2],
            ['http://site.test/unknown', 7],
          ]),
        );
        await frontier.countInLinks(
          tx,
          runId,
          new Map([
            [a, 1],
            [b, 4],
          ]),
        );
        await frontier.countInLinks(tx, runId, new Map());
      });
      expect((await rowsOf(runId)).map((r) => [r.urlKey, r.inLinks])).toEqual([
        [a, 3],
        [b, 4],
      ]);
      expect(await prisma.crawlUrl.count({ where: { runId } })).toBe(2);
    });

    it("marks the sitemap's URLs the frontier holds as listed", async () => {
      const runId = await runWith(link('http://site.test/a'), link('http://site.test/b'), link('http://site.test/c'));
      await frontier.locked(runId, async (tx) => {
        await frontier.markInSitemap(tx, runId, [normalizeUrl('http://site.test/c')!, 'http://site.test/unknown']);
        await frontier.markInSitemap(tx, runId, []);
      });
      expect((await rowsOf(runId)).map((r) => r.inSitemap)).toEqual([false, false, true]);
      await expect(frontier.sitemapUrls(runId)).resolves.toEqual(['http://site.test/c']);
    });
  });

  describe('settledPage', () => {
    it('pages through settled rows in the order they settled, each once, by a (doneAt, position) cursor', async () => {
      const paths = Array.from({ length: 9 }, (_, i) => `http://site.test/p${i}`);
      const runId = await runWith(...paths.map((p) => link(p)));
      // Settled out of position order, in four steps a few milliseconds apart.
      const batches = [[4], [7, 1, 2], [0], [8, 5]];
      await frontier.locked(runId, (tx) => frontier.markDispatched(tx, runId, batches.flat()));
      for (const batch of batches) {
        await frontier.locked(runId, (tx) =>
          frontier.settleMany(
            tx,
            runId,
            batch.map((p) => result(p, 0)),
          ),
        );
        await new Promise((r) => setTimeout(r, 5));
      }
      const all = await prisma.crawlUrl.findMany({
        where: { runId, state: 'done' },
        orderBy: [{ doneAt: 'asc' }, { position: 'asc' }],
      });
      expect(all.map((r) => r.position)).toEqual([4, 1, 2, 7, 0, 5, 8]);
      // Pages of one step share their settle time, so a page boundary falls among them.
      expect(new Set(all.filter((r) => [1, 2, 7].includes(r.position)).map((r) => r.doneAt!.getTime())).size).toBe(1);

      const seen: FrontierRow[] = [];
      let after: PageCursor | null = null;
      for (let i = 0; i < 10; i++) {
        const page: FrontierRow[] = await frontier.settledPage(runId, after, 2);
        if (!page.length) break;
        expect(page.length).toBeLessThanOrEqual(2);
        seen.push(...page);
        const last = page.at(-1)!;
        after = { at: last.doneAt!, position: last.position };
      }
      expect(seen.map((r) => r.position)).toEqual(all.map((r) => r.position));
      expect(seen.every((r) => r.state === 'done')).toBe(true);

      // Inside a step's transaction too, from any cursor.
      const third = all[2]!;
      const rest = await frontier.locked(runId, (tx) =>
        frontier.settledPage(runId, { at: third.doneAt!, position: third.position }, 100, tx),
      );
      expect(rest!.map((r) => r.position)).toEqual(all.slice(3).map((r) => r.position));
    });

    it('answers nothing for a run with no settled page', async () => {
      const runId = await runWith(link('http://site.test/a'));
      await expect(frontier.settledPage(runId, null, 10)).resolves.toEqual([]);
    });
  });
});
