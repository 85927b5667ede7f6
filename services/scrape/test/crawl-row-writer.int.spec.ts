import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { CrawlRowWriter } from '../src/batching/crawl-row-writer.js';
import { readResult as read } from './support/read-result.js';
import { PageRepository } from '../src/repositories/page.repository.js';

// Crawl pages' rows written together against a real database: the pages that finish while a
// write is out share the next statement, a redelivered page finds its row, and a row that cannot
// be written fails its own page only.

describe('crawl row writer', () => {
  let db: TestDatabase;
  let pages: PageRepository;
  const ref = (position: number, runId = 'run_rows') => ({
    workspaceId: 'ws_rows',
    runId,
    jobId: 'job_rows',
    position,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    pages = new PageRepository(db.prisma, db.raw);
    await db.prisma.workspace.create({ data: { id: 'ws_rows', name: 'rows' } });
    await db.prisma.project.create({
      data: {
        id: 'prj_rows',
        workspaceId: 'ws_rows',
        name: 'rows',
        seed: 'https://a.test/',
        host: 'a.test',
        config: {},
      },
    });
    await db.prisma.run.create({ data: { id: 'run_rows', projectId: 'prj_rows', workspaceId: 'ws_rows' } });
    await db.prisma.job.create({ data: { id: 'job_rows', workspaceId: 'ws_rows', kind: 'crawl', runId: 'run_rows' } });
  });
  afterAll(() => db.drop());

  it('writes pages that finish together in fewer statements, every row whole', async () => {
    const writer = new CrawlRowWriter(pages);
    let statements = 0;
    const insertMany = pages.insertCrawlRows.bind(pages);
    pages.insertCrawlRows = async (rows) => {
      statements += 1;
      return insertMany(rows);
    };
    const written = await Promise.all(
      Array.from({ length: 30 }, (_, i) => writer.insert(ref(i), read(`https://a.test/p/${i}`, 100 + i))),
    );
    pages.insertCrawlRows = insertMany;
    expect(written).toEqual(Array(30).fill(true));
    expect(statements).toBeLessThan(30);
    const stored = (await pages.atPositions('ws_rows', 'job_rows', [0, 17, 29])).sort(
      (a, b) => a.position - b.position,
    );
    expect(stored.map((p) => [p.position, p.url, p.verdict])).toEqual([
      [0, 'https://a.test/p/0', 'ok'],
      [17, 'https://a.test/p/17', 'ok'],
      [29, 'https://a.test/p/29', 'ok'],
    ]);
    expect((stored[1]!.data as { words: number }).words).toBe(117);
  });

  it('answers false for a page whose row was written before (a redelivered message)', async () => {
    const writer = new CrawlRowWriter(pages);
    const again = await Promise.all([
      writer.insert(ref(3), read('https://a.test/p/3', 1)),
      writer.insert(ref(30), read('https://a.test/p/30', 1)),
    ]);
    expect(again).toEqual([false, true]);
    const [kept] = await pages.atPositions('ws_rows', 'job_rows', [3]);
    expect((kept!.data as { words: number }).words).toBe(103);
  });

  it('fails only the page whose row cannot be written when they share a statement', async () => {
    const writer = new CrawlRowWriter(pages);
    // A run that does not exist: its row breaks the foreign key, the others must still land.
    const outcomes = await Promise.allSettled([
      writer.insert(ref(40), read('https://a.test/p/40', 5)),
      writer.insert(ref(41), read('https://a.test/p/41', 5)),
      writer.insert(ref(43, 'run_missing'), read('https://a.test/p/x', 5)),
      writer.insert(ref(42), read('https://a.test/p/42', 5)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await pages.atPositions('ws_rows', 'job_rows', [40, 41, 42])).map((p) => p.position).sort()).toEqual([
      40, 41, 42,
    ]);
  });
});
