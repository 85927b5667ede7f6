import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import type { CrawlPageResultMessage } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';
import { CrawlHandOff } from '../src/batching/crawl-hand-off.js';
import { PageRepository } from '../src/repositories/page.repository.js';
import { PageNotStored } from '../src/work/give-up.js';
import { readResult as read } from './support/read-result.js';

// Crawl pages handed back to the crawl against real PostgreSQL and NATS: pages that finish close
// together share one row statement and one message a crawl; a redelivered page's row stands; a
// row that cannot be written fails its own page only, and its result is not sent.

describe('crawl hand-off', () => {
  let db: TestDatabase;
  let bus: Bus;
  let pages: PageRepository;
  /** Every work.crawl.pages message the crawl side would receive, in arrival order. */
  const received: CrawlPageResultMessage[][] = [];

  const ref = (position: number, jobId = 'job_hand_a', runId = 'run_hand') => ({
    workspaceId: 'ws_hand',
    runId,
    jobId,
    position,
  });
  const answer = (position: number, jobId = 'job_hand_a'): CrawlPageResultMessage => ({
    jobId,
    runId: 'run_hand',
    workspaceId: 'ws_hand',
    position,
    attempt: 0,
    method: 'http',
    status: 'done',
    verdict: 'ok',
    errorCode: 'OK',
    httpStatus: 200,
    credits: 1,
    finalUrl: null,
    links: [`https://a.test/p/${position}/next`],
    linksInRow: false,
    retryAfterMs: null,
    creditsExhausted: false,
    gaveUp: false,
  });
  const page = (position: number, jobId = 'job_hand_a', words = 100 + position) => ({
    ref: ref(position, jobId),
    row: read(`https://a.test/p/${position}`, words),
    answer: answer(position, jobId),
  });
  const receivedPositions = (jobId: string) =>
    received
      .flat()
      .filter((p) => p.jobId === jobId)
      .map((p) => p.position)
      .sort((a, b) => a - b);
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  };

  /** Counts the row statements of a hand-off. */
  const counted = () => {
    let statements = 0;
    const insert = pages.insertCrawlRows.bind(pages);
    pages.insertCrawlRows = async (rows) => {
      statements += 1;
      return insert(rows);
    };
    return { statements: () => statements, restore: () => (pages.insertCrawlRows = insert) };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    pages = new PageRepository(db.prisma, db.raw);
    bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: uniquePrefix(),
      name: 'hand-off-spec',
      logger: createLogger('test', 'silent'),
    });
    await bus.consumeWork('work.crawl.pages', { durable: 'crawl-pages', ackWaitMs: 5_000 }, async (msg) => {
      received.push(msg.pages);
    });
    await db.prisma.workspace.create({ data: { id: 'ws_hand', name: 'hand' } });
    await db.prisma.project.create({
      data: {
        id: 'prj_hand',
        workspaceId: 'ws_hand',
        name: 'hand',
        seed: 'https://a.test/',
        host: 'a.test',
        config: {},
      },
    });
    await db.prisma.run.create({ data: { id: 'run_hand', projectId: 'prj_hand', workspaceId: 'ws_hand' } });
    for (const id of ['job_hand_a', 'job_hand_b'])
      await db.prisma.job.create({ data: { id, workspaceId: 'ws_hand', kind: 'crawl', runId: 'run_hand' } });
  });
  afterAll(async () => {
    await bus.destroyStreams();
    await bus.close();
    await db.drop();
  });

  it('sends pages that finish together in fewer statements and messages, one crawl a message', async () => {
    const handOff = new CrawlHandOff(pages, bus, 50);
    const rows = counted();
    // Two crawls' pages finishing together while more of this worker's pages are in the works.
    let release!: () => void;
    const inTheWorks = handOff.inTheWorks(() => new Promise<void>((r) => (release = r)));
    const handed = Array.from({ length: 30 }, (_, i) => handOff.hand(page(i, i % 3 ? 'job_hand_a' : 'job_hand_b')));
    await Promise.all(handed);
    release();
    await inTheWorks;
    rows.restore();
    expect(rows.statements()).toBeLessThan(10);
    await until(() => received.flat().length >= 30);
    expect(received.length).toBeLessThan(20);
    for (const message of received) expect(new Set(message.map((p) => p.jobId)).size).toBe(1);
    expect(receivedPositions('job_hand_a')).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 3));
    expect(receivedPositions('job_hand_b')).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    const stored = await pages.atPositions('ws_hand', 'job_hand_a', [1, 17, 29]);
    expect(stored.map((p) => [p.position, p.url, (p.data as { words: number }).words]).sort()).toEqual([
      [1, 'https://a.test/p/1', 101],
      [17, 'https://a.test/p/17', 117],
      [29, 'https://a.test/p/29', 129],
    ]);
  });

  it('splits pages with many links into more messages, each under what NATS takes in one', async () => {
    const handOff = new CrawlHandOff(pages, bus, 50);
    const before = received.length;
    let release!: () => void;
    const inTheWorks = handOff.inTheWorks(() => new Promise<void>((r) => (release = r)));
    // Ten pages of 1,000 links of ~110 characters: ~1.1 MB of links, over NATS's 1 MB payload.
    const linky = (position: number) => {
      const handed = page(position);
      handed.answer.links = Array.from(
        { length: 1000 },
        (_, i) => `https://a.test/p/${position}/${'deep/'.repeat(18)}${i}`,
      );
      return handed;
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => handOff.hand(linky(50 + i))));
    release();
    await inTheWorks;
    // Messages are handled as they come, not in order: wait for every page, not the last one sent.
    const wanted = Array.from({ length: 10 }, (_, i) => 50 + i);
    await until(() => wanted.every((p) => receivedPositions('job_hand_a').includes(p)));
    const messages = received.slice(before);
    expect(messages.length).toBeGreaterThan(1);
    expect(
      messages
        .flat()
        .map((p) => p.position)
        .sort(),
    ).toEqual(wanted);
    for (const message of messages) expect(JSON.stringify({ pages: message }).length).toBeLessThan(1024 * 1024);
  });

  it('does not wait for company when no other page is in the works', async () => {
    // A linger of a minute: the page goes at once or the test times out.
    await new CrawlHandOff(pages, bus, 60_000).hand(page(31));
    await until(() => receivedPositions('job_hand_a').includes(31));
    expect(receivedPositions('job_hand_a')).toContain(31);
  });

  it("keeps a redelivered page's row as its first write left it, and sends its result again", async () => {
    const before = received.flat().length;
    await new CrawlHandOff(pages, bus, 0).hand(page(1, 'job_hand_a', 5));
    const [kept] = await pages.atPositions('ws_hand', 'job_hand_a', [1]);
    expect((kept!.data as { words: number }).words).toBe(101);
    await until(() => received.flat().length > before);
    expect(
      received
        .flat()
        .slice(before)
        .map((p) => p.position),
    ).toEqual([1]);
  });

  it('fails only the page whose row cannot be written, and does not send its result', async () => {
    const handOff = new CrawlHandOff(pages, bus, 50);
    const before = received.flat().length;
    let release!: () => void;
    const inTheWorks = handOff.inTheWorks(() => new Promise<void>((r) => (release = r)));
    // A run that does not exist: its row breaks the foreign key, the others must still land.
    const broken = { ...page(43), ref: ref(43, 'job_hand_a', 'run_missing') };
    const outcomes = await Promise.allSettled([
      handOff.hand(page(40)),
      handOff.hand(page(41)),
      handOff.hand(broken),
      handOff.hand(page(42)),
    ]);
    release();
    await inTheWorks;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(PageNotStored);
    expect((await pages.atPositions('ws_hand', 'job_hand_a', [40, 41, 42, 43])).map((p) => p.position).sort()).toEqual([
      40, 41, 42,
    ]);
    await until(() => received.flat().length >= before + 3);
    await new Promise((r) => setTimeout(r, 100));
    expect(
      received
        .flat()
        .slice(before)
        .map((p) => p.position)
        .sort(),
    ).toEqual([40, 41, 42]);
  });
});
