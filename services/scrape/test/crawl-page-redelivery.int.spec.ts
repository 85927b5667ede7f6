import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Bus } from '@tidemark/bus';
import type { ScrapeCrawlPageMessage } from '@tidemark/contracts';
import { createLogger } from '@tidemark/telemetry';
import { createTestDatabase, TEST_INFRA, uniquePrefix, type TestDatabase } from '@tidemark/testkit';
import type { LadderService } from '../src/ladder/ladder.service.js';
import { PageRepository } from '../src/repositories/page.repository.js';
import { scrapeCrawlHandler } from '../src/work/scrape-crawl.handler.js';
import { readResult } from './support/read-result.js';

// A crawl page's message redelivered (its scrape worker died after writing the row, before the
// ack) answers from the row its own attempt wrote instead of fetching the page again; a retry
// (a later attempt) is not answered by the row an earlier attempt wrote. Real PostgreSQL and
// NATS; the ladder is a counter standing in for the fetch.

describe('a crawl page redelivered after its row was written', () => {
  let db: TestDatabase;
  let bus: Bus;
  let pages: PageRepository;
  let fetches = 0;
  const url = 'https://tides.test/a';

  /** Charges sent again from a stored row: [position, credits]. */
  const chargedAgain: [number, number][] = [];
  // Each fetch reads a page of a different length, so a row shows which fetch wrote it.
  const ladder = {
    scrape: async () => readResult(url, 100 + 10 * ++fetches),
    chargeAgain: async (page: { position: number }, row: { credits: number }) => {
      chargedAgain.push([page.position, row.credits]);
    },
  } as unknown as LadderService;

  const message = (attempt: number): ScrapeCrawlPageMessage => ({
    jobId: 'job_redeliver',
    runId: 'run_redeliver',
    workspaceId: 'ws_redeliver',
    position: 3,
    url,
    request: { scrapeOptions: { formats: ['markdown'] } },
    attempt,
    robotsDisallowed: false,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    pages = new PageRepository(db.prisma, db.raw);
    bus = await Bus.connect({
      url: TEST_INFRA.natsUrl,
      prefix: uniquePrefix(),
      name: 'redelivery-spec',
      logger: createLogger('test', 'silent'),
    });
    await db.prisma.workspace.create({ data: { id: 'ws_redeliver', name: 'redeliver' } });
    await db.prisma.project.create({
      data: { id: 'prj_redeliver', workspaceId: 'ws_redeliver', name: 'r', seed: url, host: 'tides.test', config: {} },
    });
    await db.prisma.run.create({
      data: { id: 'run_redeliver', projectId: 'prj_redeliver', workspaceId: 'ws_redeliver' },
    });
    await db.prisma.job.create({
      data: { id: 'job_redeliver', workspaceId: 'ws_redeliver', kind: 'crawl', runId: 'run_redeliver' },
    });
  });
  afterAll(async () => {
    await bus.destroyStreams();
    await bus.close();
    await db.drop();
  });

  const row = () =>
    db.prisma.page.findUniqueOrThrow({ where: { jobId_position: { jobId: 'job_redeliver', position: 3 } } });

  it('fetches a first attempt once, however often it is delivered', async () => {
    const handle = scrapeCrawlHandler({ bus, pages, ladder });
    await handle(message(0), { deliveryCount: 1, subject: 'work.scrape.crawl' });
    expect(chargedAgain).toEqual([]);
    await handle(message(0), { deliveryCount: 2, subject: 'work.scrape.crawl' });
    expect(fetches).toBe(1);
    // Its worker may have died before its charge was written: charged again from the row.
    expect(chargedAgain).toEqual([[3, 1]]);
    expect(await row()).toMatchObject({ attempt: 0, data: expect.objectContaining({ words: 110 }) });
  });

  it("fetches a retry even though an earlier attempt's row is there, and once only", async () => {
    const handle = scrapeCrawlHandler({ bus, pages, ladder });
    await handle(message(1), { deliveryCount: 1, subject: 'work.scrape.crawl' });
    expect(fetches).toBe(2);
    expect(await row()).toMatchObject({ attempt: 1, data: expect.objectContaining({ words: 120 }) });
    // Redelivered after its row was rewritten: answered from that row, not fetched a third time.
    await handle(message(1), { deliveryCount: 2, subject: 'work.scrape.crawl' });
    expect(fetches).toBe(2);
    // A second retry is a new attempt: fetched.
    await handle(message(2), { deliveryCount: 2, subject: 'work.scrape.crawl' });
    expect(fetches).toBe(3);
    expect(await row()).toMatchObject({ attempt: 2, data: expect.objectContaining({ words: 130 }) });
  });
});
