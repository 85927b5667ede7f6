import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import { createLogger } from '@tidemark/telemetry';
import { startTestWeb, TEST_INFRA, treeSite, type TestWeb } from '@tidemark/testkit';
import { startTestProcessFleet, type TestProcessFleet } from '../support/fleet.js';

/** Pages of the crawled site, and how long each takes to answer: fetches are in flight at the kill. */
const PAGES = 600;
const PAGE_DELAY_MS = 40;
/**
 * Pages in flight at most: one scrape replica's (paged) or the crawl's concurrency at its lease's
 * holder (leased). The most a kill can leave to fetch again.
 */
const SCRAPE_CONCURRENCY = 8;

/**
 * The same kill on either crawl engine: paged (a page a message, shared by both replicas) or
 * leased (ADR 14): with one lease slot one replica holds the crawl and the one killed is that
 * one; with two each replica holds a slot (a worker takes one lease at a time here), both fetch,
 * and one is killed: its slot goes silent, what it held is queued again and the other fetches it.
 */
const killTest = (engine: 'paged' | 'leased', slots = 1, how: 'kill' | 'freeze' | 'kill crawl' = 'kill') =>
  describe(`two replicas of the scrape and crawl workers, each in its own process (${engine} engine${slots > 1 ? `, ${slots} lease slots` : ''}${how === 'kill' ? '' : how === 'freeze' ? ', the holder frozen' : ', a crawl replica killed'})`, () => {
    let web: TestWeb;
    let t: TestProcessFleet;
    let key: string;
    let workspaceId: string;
    /** When each page /p/N was asked for (by the site's clock), in order, and by which scrape replica. */
    const fetches: { path: string; at: number; by: number }[] = [];

    beforeAll(async () => {
      web = await startTestWeb();
      const tree = treeSite(PAGES);
      const page = tree['*'] as Extract<(typeof tree)[string], (req: IncomingMessage) => unknown>;
      web.addSite('replicas.test', {
        ...tree,
        '*': (req: IncomingMessage) => {
          const path = new URL(req.url ?? '/', 'http://x').pathname;
          const by = Number(/replica (\d+)/.exec(String(req.headers['user-agent']))?.[1] ?? -1);
          if (/^\/p\/\d+$/.test(path)) fetches.push({ path, at: Date.now(), by });
          return { ...page(req), delayMs: PAGE_DELAY_MS };
        },
      });
      t = await startTestProcessFleet(
        {
          FETCH_HOST_MAP: web.hostMap,
          CRAWL_ENGINE: engine,
          CRAWL_TICK_MS: '100',
          CRAWL_ACK_WAIT_MS: '3000',
          // Short, so the killed replica's pages come back soon; long enough that a page waiting in
          // a busy CI machine's queue is not handed out twice without a kill.
          SCRAPE_ACK_WAIT_MS: '5000',
          SCRAPE_CONCURRENCY: String(SCRAPE_CONCURRENCY),
          CRAWL_LEASE_SLOTS: String(slots),
          ...(slots > 1
            ? {
                SCRAPE_LEASES: '1',
                // The killed replica's slot is cut this long after its last pull.
                CRAWL_STALE_MS: '4000',
              }
            : {}),
          // A frozen holder's lease runs out 2 s after its last pull (half of this), and only then
          // may its slot go to another holder.
          ...(how === 'freeze' ? { CRAWL_STALE_MS: '4000' } : {}),
        },
        {
          replicas: { scrape: 2, crawl: 2 },
          only: ['billing', 'scrape', 'map', 'crawl', 'gateway'],
          // Each scrape replica says which it is in its user agent: the site tells their fetches apart.
          replicaEnv: (name, replica): Record<string, string> =>
            name === 'scrape'
              ? {
                  SCRAPE_USER_AGENT: `Mozilla/5.0 (compatible; TidemarkBot/0.1; +https://tidemark.dev/bot; replica ${replica})`,
                }
              : {},
        },
      );
      const ws = await t.createWorkspace('replicas');
      key = ws.apiKey;
      workspaceId = ws.workspaceId;
      await t.db.prisma.workspace.update({ where: { id: workspaceId }, data: { plan: 'growth' } });
      await t.db.prisma.ledgerEntry.create({
        data: {
          id: 'led_replicas',
          workspaceId,
          kind: 'grant',
          reason: 'test',
          credits: 10_000,
          reference: 'replicas',
        },
      });
    }, 240_000);
    afterAll(async () => {
      await t?.stop();
      await web?.close();
    });

    const jobOf = (id: string) => t.db.prisma.job.findUniqueOrThrow({ where: { id } });
    const waitFor = async (what: string, ok: () => Promise<boolean>, timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      while (!(await ok())) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    /** The scrape replicas holding a lease now (those whose scrape-lease consumer has a message in flight). */
    const leaseHolders = async (): Promise<number[]> => {
      const bus = await Bus.connect({
        url: TEST_INFRA.natsUrl,
        prefix: t.fleet.env.NATS_PREFIX!,
        name: 'test',
        logger: createLogger('test', 'silent'),
      });
      try {
        const members = await bus.fleetStatus(500);
        const holders = members.filter(
          (m) => m.service === 'scrape' && m.consumers.some((c) => c.durable === 'scrape-lease' && c.inFlight > 0),
        );
        const replicas = holders.map(
          (h) => t.fleet.processes.find((p) => p.name === 'scrape' && p.pid === h.pid)?.replica,
        );
        if (!replicas.length || replicas.includes(undefined))
          throw new Error(`no scrape replica holds a lease: ${JSON.stringify(members)}`);
        return replicas as number[];
      } finally {
        await bus.close();
      }
    };

    const title =
      how === 'kill'
        ? 'shares one crawl; a scrape replica killed mid-crawl (the lease holder, leased) loses no page, and only pages in flight at the kill are fetched again'
        : how === 'freeze'
          ? 'a lease holder frozen mid-crawl (SIGSTOP) loses its slot to the other replica; woken, it starts nothing more: only its pages in flight at the freeze are fetched twice'
          : 'a crawl replica killed mid-crawl (SIGKILL, its pulls cut off): the holder pulls from the other, keeps its slot, and no page is lost or fetched twice';
    it(
      title,
      async () => {
        const res = await t.call('POST', '/crawl', {
          key,
          body: { url: web.url('replicas.test', '/'), limit: 2 * PAGES, concurrency: 8, useSitemap: false },
        });
        expect(res.status).toBe(202);
        const id = res.body.id as string;
        const total = PAGES + 1;
        await waitFor('150 pages', async () => ((await jobOf(id)).progress as { done: number }).done >= 150, 120_000);

        // SIGKILL: no graceful stop; its unacked pages (its lease) come back from JetStream after the
        // ack wait; a new lease holder is handed everything the lease held. gRPC callers of scrape
        // (crawl reading its rows) take turns between the replicas and skip it.
        const holders = engine === 'leased' ? await leaseHolders() : [0];
        // Two slots: both replicas hold one (the crawl is shared); one slot: one holds the crawl.
        expect(holders).toHaveLength(slots);
        const killed = holders[0]!;
        let killedAt: number;
        /** When the frozen holder was woken (the freeze only). */
        let wokeAt = Infinity;
        if (how === 'kill crawl') {
          // Whichever crawl replica answers a pull: the holder's calls take turns between them.
          await t.fleet.kill('crawl', 0, 'SIGKILL');
          killedAt = Date.now();
          expect(((await jobOf(id)).progress as { done: number }).done).toBeLessThan(total);
        } else if (how === 'kill') {
          await t.fleet.kill('scrape', killed, 'SIGKILL');
          killedAt = Date.now();
          expect(t.fleet.processes.find((p) => p.name === 'scrape' && p.replica === killed)!.child.signalCode).toBe(
            'SIGKILL',
          );
          expect(((await jobOf(id)).progress as { done: number }).done).toBeLessThan(total);
        } else {
          // Frozen, not dead: its heartbeat stops, JetStream hands its lease message to the other
          // replica, whose pulls take the slot once the frozen holder's lease has run out (or the
          // slot is cut). The frozen one is woken once the other has fetched for a while: its pages
          // in flight finish, and it must start none of the URLs it still held (the other holds them now).
          const frozen = t.fleet.processes.find((p) => p.name === 'scrape' && p.replica === killed)!;
          frozen.child.kill('SIGSTOP');
          await waitFor(
            'the holder to stop',
            async () => / T /.test(readFileSync(`/proc/${frozen.pid}/stat`, 'utf8')),
            5000,
          );
          // What it sent before it stopped reaches the site meanwhile; nobody else fetches the
          // crawl for seconds (the lease has yet to run out).
          await new Promise((r) => setTimeout(r, 200));
          killedAt = Date.now();
          try {
            const before = ((await jobOf(id)).progress as { done: number }).done;
            await waitFor(
              'the other replica to take the slot and fetch',
              async () => {
                const job = await jobOf(id);
                const lease = (job.result as { leases: { generation: number; delivery: number }[] }).leases[0]!;
                return (
                  (lease.delivery >= 2 || lease.generation >= 1) &&
                  (job.progress as { done: number }).done >= before + 50
                );
              },
              120_000,
            );
            expect(((await jobOf(id)).progress as { done: number }).done).toBeLessThan(total);
          } finally {
            frozen.child.kill('SIGCONT');
            wokeAt = Date.now();
          }
        }

        await waitFor('the end', async () => !['queued', 'running'].includes((await jobOf(id)).status), 180_000);
        const job = await jobOf(id);
        expect(job).toMatchObject({
          status: 'done',
          stop: 'exhausted',
          creditsUsed: total,
          progress: { done: total, total, queued: 0 },
        });

        // No page lost: every URL has exactly one row, and the frontier settled each.
        const rows = await t.db.prisma.page.findMany({
          where: { runId: job.runId! },
          select: { url: true, crawledAt: true },
        });
        expect(rows).toHaveLength(total);
        expect(new Set(rows.map((r) => r.url)).size).toBe(total);
        expect(await t.db.prisma.crawlUrl.count({ where: { runId: job.runId!, state: 'done' } })).toBe(total);

        // Credits exact: one charge of one credit per page, whoever fetched it and however often.
        // Waited for: a crawl page is charged after its result is handed back to the crawl (which may
        // end first), and a charge lost with the killed replica is written again from the page's row
        // only when its message comes back after the ack wait.
        const chargesNow = () => t.db.prisma.ledgerEntry.findMany({ where: { workspaceId, kind: 'charge' } });
        let charges: Awaited<ReturnType<typeof chargesNow>> = [];
        await waitFor('every page to be charged', async () => (charges = await chargesNow()).length >= total, 120_000);
        expect(charges.map((c) => c.reference.split(':').slice(0, 3).join(':')).sort()).toEqual(
          [...new Set(charges.map((c) => c.reference.split(':').slice(0, 3).join(':')))].sort(),
        );
        expect(charges).toHaveLength(total);
        expect(charges.reduce((sum, c) => sum + Math.abs(c.credits), 0)).toBe(total);

        // What is fetched twice: only pages that were in flight in the killed replica, at most as
        // many as it had in flight.
        const byPath = new Map<string, number[]>();
        for (const f of fetches) byPath.set(f.path, [...(byPath.get(f.path) ?? []), f.at]);
        expect(byPath.size).toBe(PAGES);
        const twice = [...byPath].filter(([, ats]) => ats.length > 1);
        expect(twice.length).toBeLessThanOrEqual(SCRAPE_CONCURRENCY);
        expect(fetches.every((f) => f.by === 0 || f.by === 1)).toBe(true);
        if (how !== 'freeze') {
          // A page is never fetched after its row was written (a redelivered page whose row exists
          // answers from the row): a killed replica writes nothing after its kill, so every fetch
          // of a page came before its row's crawledAt, and a page fetched twice was first fetched
          // before the kill.
          const crawledAt = new Map(rows.map((r) => [new URL(r.url).pathname, r.crawledAt!.getTime()]));
          expect([...byPath].filter(([path, ats]) => ats.some((at) => at > crawledAt.get(path)!))).toEqual([]);
          expect(twice.filter(([, ats]) => ats.length > 2 || ats[0]! > killedAt)).toEqual([]);
        } else {
          // Frozen, the holder keeps what it was doing: a page it had read may be written only once
          // it is woken (a row's crawledAt is when it was read, not written), and a request it had
          // started may leave only then. What it must not do is start anything once woken: it
          // fetches nothing between its freeze and its wake, after its wake at most what it had in
          // flight, and a page fetched twice was fetched once by each replica, the frozen one's
          // fetch before its freeze or a late one after its wake.
          const whileFrozen = (f: { by: number; at: number }) => f.by === killed && f.at > killedAt && f.at < wokeAt;
          const other = 1 - killed;
          expect(fetches.filter(whileFrozen)).toEqual([]);
          expect(fetches.filter((f) => f.by === killed && f.at >= wokeAt).length).toBeLessThanOrEqual(
            SCRAPE_CONCURRENCY,
          );
          const fetchesOf = (path: string) => fetches.filter((f) => f.path === path);
          expect(
            twice
              .map(([path]) => fetchesOf(path))
              .filter((fs) => fs.length !== 2 || fs.filter((f) => f.by === other).length !== 1 || fs.some(whileFrozen)),
          ).toEqual([]);
        }
        if (how === 'kill crawl') {
          // No holder was lost: nothing was fetched twice, and the slot never changed hands.
          expect(twice).toEqual([]);
          expect((job.result as { leases: unknown[] }).leases).toEqual([
            expect.objectContaining({ generation: 0, delivery: 1 }),
          ]);
        } else if (engine === 'leased') {
          // The killed holder's slot went to another holder (a later delivery of its message) or, with
          // two slots, was cut (a later generation) and its pages fetched by the other slot.
          const leases = (job.result as { leases: { generation: number; delivery: number }[] }).leases;
          expect(leases).toHaveLength(slots);
          expect(leases.some((l) => l.delivery >= 2 || l.generation >= 1)).toBe(true);
        }
        const root = web.hits.filter((h) => h.host === 'replicas.test' && h.path === '/');
        expect(root).toHaveLength(1);

        // The crawl's rows are read from scrape over gRPC: its callers moved on to the live replica.
        const read = await t.call('GET', `/crawl/${id}?limit=5`, { key });
        expect(read.status).toBe(200);
        expect(read.body.data).toHaveLength(5);
      },
      600_000,
    );
  });

killTest('paged');
killTest('leased');
killTest('leased', 2);
killTest('leased', 1, 'freeze');
killTest('leased', 1, 'kill crawl');
