import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { crawlLeaseV1 } from '@tidemark/contracts';
import { connectClient, type RpcClient } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, treeSite, type TestWeb } from '@tidemark/testkit';
import type * as scrape from '@tidemark/scrape';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { buildScrapeApp } from '../support/scrape-app.js';
import { until as pollUntil } from '../support/until.js';

/** Pages of the slow site (and the root): slow enough that a crawl of it is running while we look. */
const PAGES = 100;
const PAGE_DELAY_MS = 120;

describe('a crawl under a lease (CRAWL_ENGINE=leased, ADR 14)', () => {
  let web: TestWeb;
  let t: TestFleet;
  let key: string;
  let workspaceId: string;
  let crawl: RpcClient<crawlLeaseV1.CrawlLeaseServiceClient>;
  let bus: Bus;
  /** Each /p/N fetched from lease.test, in order. */
  const fetches: string[] = [];
  /** How often refuse.test's /p/3 was fetched (its row can never be stored). */
  let refusedFetches = 0;
  /** Each /p/N of requeue.test fetched, in order. */
  const requeueFetches: string[] = [];
  /** A scrape worker a test started beside the fleet's (stopped after the tests). */
  let extraWorker: scrape.ScrapeApp | null = null;
  /** When each page of wait.test was asked for, and when its one 429 was (ms since the epoch). */
  const waitHits: number[] = [];
  let askedToWaitAt = 0;

  beforeAll(async () => {
    web = await startTestWeb();
    const tree = treeSite(PAGES);
    const page = tree['*'] as Extract<(typeof tree)[string], (req: IncomingMessage) => unknown>;
    const small = treeSite(20);
    const smallPage = small['*'] as Extract<(typeof small)[string], (req: IncomingMessage) => unknown>;
    const big = treeSite(2000);
    const bigPage = big['*'] as Extract<(typeof big)[string], (req: IncomingMessage) => unknown>;
    web.addSite('slow.test', { ...big, '*': (req: IncomingMessage) => ({ ...bigPage(req), delayMs: PAGE_DELAY_MS }) });
    web.addSite('refuse.test', {
      ...small,
      '*': (req: IncomingMessage) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/p/3') refusedFetches++;
        return smallPage(req);
      },
    });
    const waitTree = treeSite(120);
    const waitPage = waitTree['*'] as Extract<(typeof waitTree)[string], (req: IncomingMessage) => unknown>;
    web.addSite('wait.test', {
      ...waitTree,
      // Every page linked from the home page: the queue is long from the start, and both slots
      // hold many URLs of the host (a slot holds its share of the queue).
      '/': {
        type: 'text/html',
        body: `<h1>Wait</h1>${Array.from({ length: 120 }, (_, i) => `<a href="/p/${i}">${i}</a>`).join(' ')}`,
      },
      '*': (req: IncomingMessage) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (!/^\/p\/\d+$/.test(path)) return waitPage(req);
        waitHits.push(Date.now());
        // One 429 and only one (a rate limiter's bucket ran dry once): Retry-After still speaks
        // for the whole host for its three seconds, whichever worker asks.
        if (waitHits.length === 15) {
          askedToWaitAt = Date.now();
          return { status: 429, headers: { 'retry-after': '3' }, type: 'text/html', body: '<h1>Slow down</h1>' };
        }
        return { ...waitPage(req), delayMs: 100 };
      },
    });
    const requeueTree = treeSite(5);
    const requeuePage = requeueTree['*'] as Extract<(typeof requeueTree)[string], (req: IncomingMessage) => unknown>;
    web.addSite('requeue.test', {
      ...requeueTree,
      '*': (req: IncomingMessage) => {
        requeueFetches.push(new URL(req.url ?? '/', 'http://x').pathname);
        return requeuePage(req);
      },
    });
    // A host that asks for a year's wait.
    web.addSite('year.test', {
      '/': { type: 'text/html', body: '<h1>Year</h1><a href="/p/1">one</a>' },
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
      '/p/1': { status: 429, headers: { 'retry-after': String(365 * 24 * 3600) }, type: 'text/html', body: 'Later' },
    });
    web.addSite('lease.test', {
      ...tree,
      '*': (req: IncomingMessage) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (/^\/p\/\d+$/.test(path)) fetches.push(path);
        return { ...page(req), delayMs: PAGE_DELAY_MS };
      },
    });
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_ENGINE: 'leased',
      CRAWL_TICK_MS: '50',
      // A lease whose holder has not pulled for this long is cut again (a new generation); a
      // holder pulls every 250 ms at most while it holds pages.
      CRAWL_STALE_MS: '5000',
      // Two slots: a crawl of concurrency 2 or more is held by two holders (here one worker
      // holds both); one of concurrency 1 by one.
      CRAWL_LEASE_SLOTS: '2',
    });
    const ws = await t.createWorkspace('lease');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
    crawl = connectClient(crawlLeaseV1.CrawlLeaseServiceClient, t.fleet.grpc.crawl, 'crawl');
    bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: t.env.NATS_PREFIX!,
      name: 'test',
      logger: createLogger('test', 'silent'),
    });
  }, 120_000);
  afterAll(async () => {
    await extraWorker?.stop();
    crawl?.close();
    await bus?.close();
    await t?.stop();
    await web?.close();
  });

  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
  type Slot = {
    generation: number;
    delivery: number;
    pulledAt?: number;
    released?: boolean;
    holder?: string;
    past?: string[];
  };
  const leasesOf = async (id: string) => ((await jobOf(id)).result as { leases?: Slot[] }).leases ?? [];
  const leaseOf = async (id: string) => (await leasesOf(id))[0];
  /** A pull of a slot as a holder of the test's making. */
  const pullAs =
    (ref: { jobId: string; runId: string; slot: number }) => (over: Partial<crawlLeaseV1.PullCrawlWorkRequest>) =>
      crawl.call('pullCrawlWork', {
        ...ref,
        workspaceId,
        generation: 0,
        delivery: 0,
        holder: '',
        results: [],
        returned: [],
        handOver: false,
        resync: false,
        release: false,
        ...over,
      });
  /** A page settled as read and stored, as a holder hands it back. */
  const doneResult = (position: number): crawlLeaseV1.LeasedPageResult => ({
    position,
    attempt: 0,
    method: 'http',
    status: 'done',
    verdict: 'ok',
    errorCode: '',
    httpStatus: 200,
    credits: 1,
    finalUrl: '',
    links: [],
    linksInRow: false,
    retryAfterMs: 0,
    creditsExhausted: false,
    gaveUp: false,
  });
  const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000) =>
    pollUntil(what, read, ok, { timeoutMs, everyMs: 50, shown: 300 });

  /** Starts a crawl and waits for its end: the job as it ended, and its id. */
  const crawlToEnd = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/crawl', { key, body: { useSitemap: false, ...body } });
    expect(res.status).toBe(202);
    const job = await until(
      'the end',
      () => jobOf(res.body.id),
      (j) => !['queued', 'running'].includes(j.status),
    );
    return { id: res.body.id as string, job };
  };
  /** The lease slots whose holders read pages of a run, in order. */
  const slotsThatRead = async (runId: string) =>
    (await t.db.prisma.crawlUrl.groupBy({ by: ['leaseSlot'], where: { runId, state: 'done' }, _count: true }))
      .filter((g) => g._count > 0)
      .map((g) => g.leaseSlot)
      .sort();

  it('crawls every page once through two lease slots, none sent as a message of its own', async () => {
    const { job } = await crawlToEnd({ url: web.url('tree.test', '/'), limit: 200, concurrency: 4 });
    expect(job).toMatchObject({ status: 'done', progress: { done: 200, total: 200, queued: 0 }, creditsUsed: 200 });
    // Both slots were taken and each held pages: the crawl's concurrency was split between them.
    const slots = (job.result as { leases: Slot[] }).leases;
    expect(slots).toHaveLength(2);
    expect(slots.every((s) => s.generation === 0 && s.delivery >= 1)).toBe(true);
    expect(await slotsThatRead(job.runId!)).toEqual([0, 1]);
    const rows = await t.db.prisma.page.findMany({ where: { runId: job.runId! }, select: { url: true } });
    expect(new Set(rows.map((r) => r.url)).size).toBe(200);
    const hits = web.hits.filter((h) => h.host === 'tree.test' && h.path !== '/robots.txt').map((h) => h.path);
    expect(hits).toHaveLength(new Set(hits).size);
    // The per-page lane carried nothing: the pages went out in the lease's pulls.
    expect((await bus.consumerInfo('scrape-crawl')).delivered).toBe(0);
  });

  it("keeps a host's Retry-After at every holder: the 429 one holder hears stops the other's fetches of that host too", async () => {
    const { job } = await crawlToEnd({ url: web.url('wait.test', '/'), limit: 100, concurrency: 4 });
    expect(job).toMatchObject({ status: 'done', progress: { done: 100, total: 100, queued: 0 } });
    expect(askedToWaitAt).toBeGreaterThan(0);
    // Both slots held pages of the host (each was fetching it when the 429 came).
    expect(await slotsThatRead(job.runId!)).toEqual([0, 1]);
    // The holder that heard the 429 stops at once; the other hears of it at its next pull (at
    // most ~250 ms on, as it is handing pages back) and lets its pages in flight finish. From a
    // second on, nothing goes to the host until its three seconds are over.
    const during = waitHits.filter((at) => at >= askedToWaitAt + 1000 && at < askedToWaitAt + 2900);
    expect(during).toEqual([]);
    // Every page was fetched (the 429'd one again, after the wait), and the crawl went on after it.
    expect(waitHits.filter((at) => at >= askedToWaitAt + 2900).length).toBeGreaterThan(10);
    const limited = await t.db.prisma.crawlUrl.findFirstOrThrow({
      where: { runId: job.runId!, attempts: { gt: 1 } },
    });
    expect(limited.state).toBe('done');
  });

  it('waits at most ten minutes for a Retry-After, whatever the host asks (a crawl must end)', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('year.test', '/'), limit: 5, concurrency: 2, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const { runId } = await jobOf(res.body.id);
    const limited = await until(
      'the 429 settled',
      () => t.db.prisma.crawlUrl.findFirst({ where: { runId: runId!, url: { endsWith: '/p/1' }, attempts: 1 } }),
      (row) => row?.state === 'queued' && row.notBefore !== null,
    );
    const waitMs = limited!.notBefore!.getTime() - Date.now();
    expect(waitMs).toBeGreaterThan(9 * 60_000);
    expect(waitMs).toBeLessThanOrEqual(10 * 60_000);
    expect((await t.call('DELETE', `/crawl/${res.body.id}`, { key })).status).toBe(200);
  });

  it("orders a slot's holders: an older one is refused, a newer one waits while the slot's lease runs; no page is fetched twice", async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('lease.test', '/'), limit: 2 * PAGES, concurrency: 2, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const job = await until(
      'the lease to be taken and pages to settle',
      () => jobOf(id),
      (j) =>
        ((j.result as { leases?: Slot[] }).leases?.[0]?.delivery ?? 0) >= 1 &&
        (j.progress as { done: number }).done >= 4,
    );
    const holder = (await leaseOf(id))!;
    // Slot 0's holders; slot 1's goes on fetching meanwhile.
    const pull = pullAs({ jobId: id, runId: job.runId!, slot: 0 });

    // A holder older than the lease's: refused, and what it hands back is not taken in.
    const heldOne = await t.db.prisma.crawlUrl.findFirstOrThrow({
      where: { runId: job.runId!, state: 'dispatched', leaseSlot: 0 },
      orderBy: { position: 'desc' },
    });
    const older = await pull({ delivery: 0, results: [doneResult(heldOne.position)] });
    expect(older).toMatchObject({ state: 'lost', urls: [] });
    const after = await t.db.prisma.crawlUrl.findFirstOrThrow({
      where: { runId: job.runId!, position: heldOne.position },
    });
    expect(after.state).not.toBe('done');

    // A newer delivery while the holder pulls (it is alive, and may be starting pages): told to
    // wait, handed nothing, and the slot stays the holder's, which goes on pulling.
    const newer = await pull({ delivery: 1000, resync: true });
    expect(newer).toMatchObject({ state: 'wait', urls: [], leaseMs: 0 });
    expect(newer.pullAgainMs).toBeGreaterThan(0);
    expect(newer.pullAgainMs).toBeLessThanOrEqual(1000);
    const renewed = await until(
      'the holder to pull again',
      () => leaseOf(id),
      (lease) => (lease?.pulledAt ?? 0) > holder.pulledAt!,
    );
    expect(renewed).toMatchObject({ generation: 0, delivery: holder.delivery });
    expect(await pull({ delivery: 1000, resync: true })).toMatchObject({ state: 'wait', urls: [] });

    const ended = await until(
      'the end',
      () => jobOf(id),
      (j) => !['queued', 'running'].includes(j.status),
      120_000,
    );
    expect(ended).toMatchObject({ status: 'done', progress: { done: PAGES + 1, total: PAGES + 1, queued: 0 } });
    expect(await leaseOf(id)).toMatchObject({ generation: 0, delivery: holder.delivery });
    // Nobody took the slot over: every page was fetched once and charged once.
    expect(fetches).toHaveLength(PAGES);
    expect(new Set(fetches).size).toBe(PAGES);
    const charges = await t.db.prisma.ledgerEntry.findMany({
      where: { workspaceId, kind: 'charge', reference: { startsWith: `page:${id}:` } },
    });
    expect(charges).toHaveLength(PAGES + 1);
  }, 180_000);

  it('settles a page whose row can never be stored as given up, fetched and charged once, and the crawl ends', async () => {
    // A refusal like a value PostgreSQL cannot hold: every write of that page's read row fails.
    await t.db.prisma.$executeRawUnsafe(
      `ALTER TABLE page ADD CONSTRAINT refused_row CHECK (url NOT LIKE '%refuse.test%/p/3' OR status <> 'done')`,
    );
    const { id, job } = await crawlToEnd({ url: web.url('refuse.test', '/'), limit: 50, concurrency: 2 });
    // (The refused page's links are not followed: nothing of it was kept.)
    const progress = job.progress as { done: number; total: number; queued: number };
    expect(job.status).toBe('done');
    expect(progress.queued).toBe(0);
    expect(progress.done).toBe(progress.total);
    expect(progress.total).toBeGreaterThan(5);
    const refused = await t.db.prisma.page.findFirstOrThrow({
      where: { runId: job.runId!, url: { endsWith: '/p/3' } },
    });
    // What was read (its status code) and why it is not there.
    expect(refused).toMatchObject({ status: 'error', httpStatus: 200 });
    expect(JSON.stringify(refused.data)).toContain('the page was read but could not be stored (gave up after 3 tries)');
    const row = await t.db.prisma.crawlUrl.findFirstOrThrow({
      where: { runId: job.runId!, url: { endsWith: '/p/3' } },
    });
    expect(row).toMatchObject({ state: 'done', attempts: 1 });
    expect(refusedFetches).toBe(1);
    const charges = await t.db.prisma.ledgerEntry.findMany({
      where: { workspaceId, kind: 'charge', reference: { startsWith: `page:${id}:` } },
    });
    // Every page charged once, the refused one too (it was read).
    expect(charges).toHaveLength(progress.total);
  });

  it('cancels: the lease stops at once, only the page in flight finishes', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('slow.test', '/'), concurrency: 1, limit: 2000, useSitemap: false },
    });
    await until(
      '3 pages',
      () => jobOf(res.body.id),
      (j) => (j.progress as { done: number }).done >= 3,
    );
    const before = web.hits.filter((h) => h.host === 'slow.test').length;
    const cancelled = await t.call('DELETE', `/crawl/${res.body.id}`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', stop: 'cancelled' });
    // The page in flight finishes and is handed back; the URLs still queued are counted unfetched.
    // (Waited for rather than given a fixed time: on a loaded machine the hand-back can take longer
    // than a page's delay.)
    const end = await until(
      'nothing queued',
      () => jobOf(res.body.id),
      (j) => (j.progress as { queued: number }).queued === 0,
    );
    expect(
      await t.db.prisma.crawlUrl.count({ where: { runId: end.runId!, state: { in: ['dispatched', 'queued'] } } }),
    ).toBe(0);
    // Nothing starts after that, however long one waits.
    await new Promise((r) => setTimeout(r, 5 * PAGE_DELAY_MS));
    // At most one more: the page in flight is counted already; the next may have started while
    // the cancel was on its way, and nothing after it.
    expect(web.hits.filter((h) => h.host === 'slow.test').length - before).toBeLessThanOrEqual(1);
  });

  // Last: it stops this fleet's scrape service.
  it('a holder that lets its slot go (its worker stops) leaves it free at once: a newer holder is handed everything it holds, another of the same delivery count waits for it; a slot nobody pulls is cut again', async () => {
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('slow.test', '/'), limit: 2000, concurrency: 2, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const job = await until(
      'both slots taken and pages settled',
      () => jobOf(id),
      (j) =>
        ((j.result as { leases?: Slot[] }).leases ?? []).filter((l) => l.delivery >= 1).length === 2 &&
        (j.progress as { done: number }).done >= 4,
    );
    // The worker stops: each holder hands back what was in flight, gives back what waited, and
    // says it lets its slot go.
    await t.fleet.stopService('scrape');
    const released = await leasesOf(id);
    expect(released.map((l) => l.released)).toEqual([true, true]);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId: job.runId!, state: 'dispatched' } })).toBe(0);

    // A newer holder takes slot 0 at once (no lease runs), is handed its share, and lets it go
    // again, handing every URL back unfetched: queued again, no attempt counted.
    const pull = pullAs({ jobId: id, runId: job.runId!, slot: 0 });
    const delivery = released[0]!.delivery + 1;
    const taken = await pull({ delivery, holder: 'a', resync: true });
    expect(taken.state).toBe('go');
    expect(taken.leaseMs).toBe(2500);
    expect(taken.urls.length).toBeGreaterThan(0);
    const dispatched = await t.db.prisma.crawlUrl.findMany({
      where: { runId: job.runId!, state: 'dispatched', leaseSlot: 0 },
    });
    expect(taken.urls.map((u) => u.position).sort((a, b) => a - b)).toEqual(
      dispatched.map((d) => d.position).sort((a, b) => a - b),
    );
    expect(await leaseOf(id)).toMatchObject({ generation: 0, delivery, holder: 'a' });
    // Another holder of the same delivery count (JetStream's count went backwards): kept waiting
    // while the first one's lease runs.
    expect(await pull({ delivery, holder: 'b', resync: true })).toMatchObject({ state: 'wait', urls: [] });
    const back = await pull({
      delivery,
      holder: 'a',
      release: true,
      returned: taken.urls.map((u) => u.position),
    });
    expect(back).toMatchObject({ state: 'go', urls: [] });
    const queuedAgain = await t.db.prisma.crawlUrl.findMany({
      where: { runId: job.runId!, position: { in: taken.urls.map((u) => u.position) } },
    });
    expect(queuedAgain.every((row) => row.state === 'queued')).toBe(true);
    expect(
      queuedAgain.every((row) => row.attempts === taken.urls.find((u) => u.position === row.position)!.attempt),
    ).toBe(true);

    // The first let go: the other takes the slot at once, and the first is refused from then on.
    const second = await pull({ delivery, holder: 'b', resync: true });
    expect(second.state).toBe('go');
    expect(await leaseOf(id)).toMatchObject({ generation: 0, delivery, holder: 'b', past: ['a'] });
    expect(await pull({ delivery, holder: 'a' })).toMatchObject({ state: 'lost', urls: [] });
    expect(
      await pull({ delivery, holder: 'b', release: true, returned: second.urls.map((u) => u.position) }),
    ).toMatchObject({ state: 'go', urls: [] });

    // Nobody pulls (no worker is left): after CRAWL_STALE_MS each slot goes out as a new generation.
    await until(
      'new generations',
      () => leasesOf(id),
      (leases) => leases.every((l) => l.generation >= 1),
      30_000,
    );
    const cancelled = await t.call('DELETE', `/crawl/${id}`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
  }, 120_000);
  it('sends a lease again whose message left the work queue before any worker took it, three times in a row at most; a worker then crawls it to its end', async () => {
    // No worker takes leases (the test before stopped it; stopping is idempotent), and nothing
    // waits in the work queue.
    await t.fleet.stopService('scrape');
    await bus.purgeWork('work.scrape.lease');
    const res = await t.call('POST', '/crawl', {
      key,
      body: { url: web.url('requeue.test', '/'), limit: 5, concurrency: 1, useSitemap: false },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await until(
      'the lease to wait in the queue',
      () => bus.consumerInfo('scrape-lease'),
      (c) => c.pending === 1,
    );
    expect(await leasesOf(id)).toEqual([expect.objectContaining({ generation: 0, delivery: 0 })]);
    /** Waits for the slot's next generation, sent again (`requeued` times in a row), to wait in the queue. */
    const sentAgainAs = async (generation: number, requeued: number) => {
      await until(
        'the lease sent again',
        () => leasesOf(id),
        (l) => l[0]?.generation === generation,
        30_000,
      );
      expect(await leasesOf(id)).toEqual([expect.objectContaining({ generation, delivery: 0, requeued })]);
      expect((await bus.consumerInfo('scrape-lease')).pending).toBe(1);
    };

    // Its message is lost (purged): past CRAWL_STALE_MS with no lease waiting, the slot goes out
    // again as a new generation, counted.
    expect(await bus.purgeWork('work.scrape.lease')).toBe(1);
    await sentAgainAs(1, 1);

    // After three in a row it is not sent again: the crawl is left to the watchdog.
    await t.db.prisma.$executeRaw`
      UPDATE job SET result = jsonb_set(result, '{leases,0,requeued}', '3') WHERE id = ${id}`;
    expect(await bus.purgeWork('work.scrape.lease')).toBe(1);
    await new Promise((r) => setTimeout(r, 5000 + 2000));
    expect(await leasesOf(id)).toEqual([expect.objectContaining({ generation: 1, delivery: 0, requeued: 3 })]);
    expect((await bus.consumerInfo('scrape-lease')).pending).toBe(0);

    // Below the bound it goes out again, and a worker takes it and crawls every page once.
    await t.db.prisma.$executeRaw`
      UPDATE job SET result = jsonb_set(result, '{leases,0,requeued}', '1') WHERE id = ${id}`;
    await sentAgainAs(2, 2);
    extraWorker = await buildScrapeApp(t);
    await extraWorker.start();
    const job = await until(
      'the end',
      () => jobOf(id),
      (j) => !['queued', 'running'].includes(j.status),
    );
    expect(job).toMatchObject({ status: 'done', progress: { done: 5, queued: 0 } });
    // The home page and four pages, each fetched once (the counter sees the four).
    expect(requeueFetches.sort()).toEqual(['/p/0', '/p/1', '/p/2', '/p/3']);
  }, 120_000);
});
