import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { scrapeRequestSchema } from '@tidemark/contracts';
import * as crawl from '@tidemark/crawl';
import * as scrape from '@tidemark/scrape';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { buildScrapeApp } from '../support/scrape-app.js';
import { until as pollUntil } from '../support/until.js';

/**
 * Issue 12, item 10: a job or run that makes no progress is failed with a reason by the watchdog
 * every crawl and scrape worker runs, and two workers never both act on one. Work is lost for
 * real: no scrape worker runs, and the messages waiting for one are purged from the stream (an
 * operator's purge, or a worker that died on its last delivery, leaves the same state).
 */
/**
 * What the watchdog writes on a job it ends (JOB_STALL_MS 5000 in the first block). Not shorter:
 * the map test's last discovery must finish between two of its progress writes, and a machine
 * busy with other suites has taken over 2 s between them.
 */
const reason = 'no progress for 5 seconds; the watchdog ended it';

/** A bus on a test fleet's prefix, to look at and purge its work lanes. */
const laneBus = (t: TestFleet) =>
  Bus.connect({
    url: TEST_INFRA.natsUrl,
    prefix: t.env.NATS_PREFIX!,
    name: 'test',
    logger: createLogger('test', 'silent'),
  });

/** Reads until `ok`, or fails naming what it waited for. */
const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000) =>
  pollUntil(what, read, ok, { timeoutMs: ms, everyMs: 100 });

describe('the watchdog ends stalled jobs and runs', () => {
  let web: TestWeb;
  let t: TestFleet;
  let bus: Bus;
  let key: string;
  let workspaceId: string;
  const apps: { stop(): Promise<void> }[] = [];
  const STALL = 5000;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_TICK_MS: '100',
      JOB_STALL_MS: String(STALL),
      JOB_WATCHDOG_MS: '300',
      // Lost work is a dispatch message purged here (the paged engine's); a leased crawl's lost
      // lease is cut again instead (crawl-lease.int.spec.ts).
      CRAWL_ENGINE: 'paged',
    });
    const ws = await t.createWorkspace('stalled');
    key = ws.apiKey;
    workspaceId = ws.workspaceId;
    await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
    bus = await laneBus(t);
    // No scrape worker: every page of every job waits, until the test purges what waits.
    await t.fleet.stopService('scrape');
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await bus.close();
    await t.stop();
    await web.close();
  });

  const scrapeApp = async () => {
    const app = await buildScrapeApp(t);
    apps.push(app);
    return app;
  };
  /** A batch job made by the scrape service itself (its gRPC front is down with the workers). */
  const batch = (app: scrape.ScrapeApp, n: number) => {
    const raw = { urls: Array.from({ length: n }, (_, i) => web.url('a.test', `/p/${i}`)) };
    return app.jobs.start(workspaceId, raw.urls, scrapeRequestSchema.parse(raw), raw, null).then((r) => r.job.id);
  };
  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
  const ended = (j: { status: string }) => !['queued', 'running'].includes(j.status);

  it("fails a scrape job whose pages were lost, on a scrape worker's own timer, rows and all", async () => {
    const idle = await scrapeApp(); // built, not started: its consumers would take the pages
    const id = await batch(idle, 3);
    expect(await bus.purgeWork('work.scrape.page')).toBe(3);
    const worker = await scrapeApp();
    await worker.start();
    // Ended, then its open rows settled and counted (a moment later).
    const job = await until(
      'the watchdog',
      () => jobOf(id),
      (j) => ended(j) && (j.counts as any).error === 3,
    );
    expect(job).toMatchObject({
      status: 'error',
      stop: 'error',
      error: { message: reason },
      progress: { done: 3, total: 3, queued: 0 },
      counts: { error: 3 },
    });
    const rows = await t.db.prisma.page.findMany({ where: { jobId: id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => [r.status, (r.data as { reason: string }).reason])).toEqual(
      Array.from({ length: 3 }, () => ['error', `${reason} before this page was read`]),
    );
    const envelope = await worker.jobs.envelope(job);
    expect(envelope).toMatchObject({ status: 'error', error: reason });
    // Stopped here, so not again after the file (an app is stopped once).
    apps.splice(apps.indexOf(worker), 1);
    await worker.stop();
  });

  it('ends each stalled job once when two workers look at the same time (SKIP LOCKED)', async () => {
    const [one, two] = [await scrapeApp(), await scrapeApp()];
    const ids = [await batch(one, 2), await batch(one, 5), await batch(two, 1), await batch(two, 4)];
    expect(await bus.purgeWork('work.scrape.page')).toBe(12);
    await new Promise((r) => setTimeout(r, STALL + 500));
    const [a, b] = await Promise.all([one.jobs.failStalled(STALL), two.jobs.failStalled(STALL)]);
    expect(a + b).toBe(4);
    expect(await one.jobs.failStalled(STALL)).toBe(0);
    for (const id of ids) expect(await jobOf(id)).toMatchObject({ status: 'error', error: { message: reason } });
  });

  it('fails a crawl whose dispatched page was lost; of two crawl workers one acts', async () => {
    const second = await crawl.buildApp(
      crawl.loadConfig({
        ...process.env,
        ...t.env,
        MAP_GRPC_URL: t.fleet.grpc.map,
        SCRAPE_GRPC_URL: t.fleet.grpc.scrape,
        CRAWL_GRPC_LISTEN: '127.0.0.1:0',
      }),
    );
    apps.push(second);
    await second.start();
    const res = await t.call('POST', '/crawl', { key, body: { url: web.url('tree.test', '/'), useSitemap: false } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await until(
      'the seed to go out',
      () => jobOf(id),
      (j) => j.status === 'running',
    );
    expect(await bus.purgeWork('work.scrape.crawl')).toBe(1);
    const job = await until('the watchdog', () => jobOf(id), ended);
    expect(job).toMatchObject({
      status: 'error',
      stop: 'error',
      error: { message: `${reason}; 1 URLs not fetched` },
      counts: { unfetched: 1 },
      progress: { done: 0, total: 1, queued: 0 },
    });
    const log = (job.result as { log: { message: string }[] }).log.filter((l) => l.message.startsWith('no progress'));
    expect(log).toHaveLength(1);
    expect(await t.db.prisma.crawlUrl.count({ where: { runId: job.runId!, state: 'unfetched' } })).toBe(1);
    expect(await t.db.prisma.run.findUniqueOrThrow({ where: { id: job.runId! } })).toMatchObject({
      status: 'error',
      stop: 'error',
    });
  });

  it("fails a project's stalled run, and the project starts its next run", async () => {
    const made = await t.call('POST', '/projects', {
      key,
      body: { seed: web.url('tree.test', '/'), config: { useSitemap: false } },
    });
    expect(made.status).toBe(201);
    const projectId = made.body.id as string;
    const first = await t.call('POST', `/projects/${projectId}/runs`, { key });
    expect(first.status).toBe(202);
    const runOf = (runId: string) => t.call('GET', `/projects/${projectId}/runs/${runId}`, { key }).then((r) => r.body);
    await until(
      'the run to start',
      () => runOf(first.body.id),
      (r) => r.status === 'running',
    );
    await until(
      'its seed to go out',
      () => bus.purgeWork('work.scrape.crawl'),
      (n) => n === 1,
    );
    expect(await t.call('POST', `/projects/${projectId}/runs`, { key })).toMatchObject({ status: 409 });
    const failed = await until(
      'the watchdog',
      () => runOf(first.body.id),
      (r) => ended(r),
    );
    expect(failed).toMatchObject({ status: 'error', stop: 'error' });
    expect(failed.log.at(-1).message).toBe(`${reason}; 1 URLs not fetched`);
    expect(await t.call('POST', `/projects/${projectId}/runs`, { key })).toMatchObject({ status: 202 });
  });

  it("fails a map job whose work was lost, and a project's wedged discovery no longer answers 409", async () => {
    // A job row whose message never reached the stream (the publish failed after the row was
    // written) and one a worker took and died on at its last delivery: no worker will move either.
    const lost = async (status: 'queued' | 'running') => {
      const id = `job_lostmap${status}`;
      await t.db.prisma.job.create({
        data: {
          id,
          workspaceId,
          kind: 'map',
          status,
          request: { url: web.url('tree.test', '/'), search: null, limit: 100, sitemapMode: 'auto' },
        },
      });
      return id;
    };
    const made = await t.call('POST', '/projects', { key, body: { seed: web.url('tree.test', '/') } });
    expect(made.status).toBe(201);
    const projectId = made.body.id as string;
    const snapshotJob = await lost('queued');
    await t.db.prisma.discoverySnapshot.create({
      data: { id: 'dsn_lostmap', workspaceId, projectId, jobId: snapshotJob },
    });
    const running = await lost('running');
    // While it is open, the project's next discovery is refused.
    expect((await t.call('POST', `/projects/${projectId}/discovery`, { key })).status).toBe(409);

    const mapOf = (id: string) => t.call('GET', `/map/${id}`, { key }).then((r) => r.body);
    for (const id of [snapshotJob, running]) {
      const job = await until('the map watchdog', () => mapOf(id), ended);
      expect(job).toMatchObject({ status: 'error', error: reason });
    }
    expect(await jobOf(running)).toMatchObject({ status: 'error', stop: 'error', error: { message: reason } });
    // The snapshot says how it ended (written by the job's end hook, just after the job's row, so
    // waited for), and a new discovery starts (and ends: the map worker is up).
    const snapshot = await until(
      'the snapshot to be summed up',
      () => t.db.prisma.discoverySnapshot.findUniqueOrThrow({ where: { id: 'dsn_lostmap' } }),
      (s) => s.summary !== null,
    );
    expect(snapshot.summary).toMatchObject({ status: 'error' });
    const again = await t.call('POST', `/projects/${projectId}/discovery`, { key });
    expect(again.status).toBe(202);
    const next = await until(
      'the next discovery',
      () => t.call('GET', `/projects/${projectId}/discovery`, { key }).then((r) => r.body),
      (b) => b.job === null && b.discovery !== null,
    );
    expect(next.discovery).toMatchObject({ status: 'done' });
  });
});

/**
 * A leased crawl (ADR 14) waits for a worker to take its lease, as queued work waits behind a
 * backlog; a lease that was taken and went silent is cut again (crawl-lease.int.spec.ts); one
 * lost before any worker took it is sent again after CRAWL_STALE_MS (crawl-lease.int.spec.ts), but
 * here the stall time is the shorter: nothing moves the crawl, and the watchdog ends it. A
 * crawl of the same workspace deferred behind that lease (the queue holds one lease of a
 * workspace) was waiting its turn, not stalled: it is not failed with it, and its lease goes out.
 */
describe("the watchdog and a leased crawl's lease", () => {
  let web: TestWeb;
  let t: TestFleet;
  let bus: Bus;
  let key: string;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({
      FETCH_HOST_MAP: web.hostMap,
      CRAWL_TICK_MS: '100',
      JOB_STALL_MS: '2000',
      JOB_WATCHDOG_MS: '300',
      CRAWL_ENGINE: 'leased',
    });
    const ws = await t.createWorkspace('lease-waits');
    key = ws.apiKey;
    await t.db.prisma.workspace.update({ where: { id: ws.workspaceId }, data: { plan: 'growth' } });
    bus = await laneBus(t);
    // No scrape worker: the crawl's lease waits for one.
    await t.fleet.stopService('scrape');
  });
  afterAll(async () => {
    await bus.close();
    await t.stop();
    await web.close();
  });

  const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });

  it('leaves a crawl waiting for a free worker alone; fails one whose lease was lost, not the crawl deferred behind it', async () => {
    const start = async () => {
      const res = await t.call('POST', '/crawl', {
        key,
        body: { url: web.url('tree.test', '/'), limit: 5, useSitemap: false },
      });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const waiting = await start();
    await until(
      'the lease to go out',
      () => bus.consumerInfo('scrape-lease'),
      (c) => c.pending === 1,
    );
    // The workspace's second crawl is deferred: its first lease waits in the queue.
    const deferred = await start();
    const leasesOf = async (id: string) =>
      ((await jobOf(id)).result as { leases: { generation: number; delivery: number; deferredAt?: number }[] }).leases;
    await until(
      'the second crawl to defer its lease',
      () => leasesOf(deferred),
      (l) => l?.[0]?.deferredAt !== undefined,
    );
    // Past the stall time the crawl is still running: its lease waits in the lane for a worker,
    // as queued work waits behind a backlog, and the watchdog leaves it alone.
    await new Promise((r) => setTimeout(r, 3000));
    const still = await jobOf(waiting);
    expect(still).toMatchObject({ status: 'running', progress: { done: 0, total: 1, queued: 1 } });
    expect((still.result as { leases: { delivery: number }[] }).leases).toEqual([
      expect.objectContaining({ generation: 0, delivery: 0 }),
    ]);

    // The lease message is lost (an operator's purge): nothing moves the crawl within the stall
    // time (the lease would go out again after CRAWL_STALE_MS, ten minutes), and the watchdog
    // ends it with its reason and the URL it never fetched.
    expect(await bus.purgeWork('work.scrape.lease')).toBe(1);
    const lost = await until(
      'the watchdog',
      () => jobOf(waiting),
      (j) => !['queued', 'running'].includes(j.status),
    );
    expect(lost).toMatchObject({
      status: 'error',
      stop: 'error',
      error: { message: 'no progress for 2 seconds; the watchdog ended it; 1 URLs not fetched' },
      counts: { unfetched: 1 },
      progress: { done: 0, total: 1, queued: 0 },
    });
    expect(await t.db.prisma.crawlUrl.count({ where: { runId: lost.runId!, state: 'unfetched' } })).toBe(1);
    expect(await t.db.prisma.run.findUniqueOrThrow({ where: { id: lost.runId! } })).toMatchObject({ status: 'error' });

    // The deferred crawl had not moved for as long, but it waited for the lost lease's turn: it
    // runs on, and its lease goes out now that no lease of its workspace waits. The lease is
    // published inside the transaction that clears its deferral, so the message can be seen in
    // the queue a moment before the crawl's record shows it sent: wait for both.
    await until(
      'the deferred lease to go out',
      () => bus.consumerInfo('scrape-lease'),
      (c) => c.pending === 1,
    );
    await until(
      'the deferred crawl to record its lease sent',
      () => leasesOf(deferred),
      (l) => l?.[0]?.deferredAt === undefined,
    );
    expect(await leasesOf(deferred)).toEqual([{ generation: 0, delivery: 0, pulledAt: expect.any(Number) }]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await jobOf(deferred)).toMatchObject({ status: 'running', progress: { done: 0, total: 1, queued: 1 } });
  });
});
