import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { ExportService, type ExportRequest } from '../src/exports/export.service.js';
import { RunExportRepository } from '../src/repositories/run-export.repository.js';

/**
 * The export service on a real PostgreSQL with rows written as scrape, crawl and diff write
 * them, read two rows per query: every dataset must cross its keyset boundaries whole.
 */
describe('ExportService over stored rows, two rows per batch', () => {
  let db: TestDatabase;
  let service: ExportService;
  const ws = 'ws_export';
  const run = 'run_export';

  // The seed is www.h.test; h.test (no www) is the same site, blog.h.test another host.
  const pages: { url: string; verdict: string; title: string | null; description?: string; markdown?: string }[] = [
    { url: 'https://www.h.test/', verdict: 'ok', title: 'Home of H', description: 'All about H.', markdown: '# H' },
    { url: 'https://www.h.test/docs/b', verdict: 'ok', title: 'B', markdown: 'bee' },
    { url: 'https://h.test/docs/a', verdict: 'thin', title: 'A', description: 'first', markdown: 'ay' },
    { url: 'https://www.h.test/docs', verdict: 'ok', title: 'Docs', markdown: 'docs' },
    { url: 'https://www.h.test/gone', verdict: 'blocked', title: null },
    { url: 'https://www.h.test/x?y=1', verdict: 'ok', title: null, markdown: 'query page' },
    { url: 'https://blog.h.test/', verdict: 'ok', title: 'Blog', markdown: 'blog' },
    { url: 'https://blog.h.test/2026/post', verdict: 'ok', title: 'Post', markdown: 'post' },
    { url: 'https://www.h.test/docs-old/', verdict: 'skipped', title: 'Old docs', markdown: 'old' },
  ];

  const text = async (req: Partial<ExportRequest>) => {
    const parts: Buffer[] = [];
    let heads = 0;
    for await (const m of service.messages({
      workspaceId: ws,
      projectId: 'prj_export',
      runId: null,
      dataset: 'pages',
      format: '',
      urls: null,
      ...req,
    })) {
      if (m.head) heads++;
      parts.push(m.data);
    }
    expect(heads).toBe(1);
    return Buffer.concat(parts).toString('utf8');
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const p = db.prisma;
    await p.workspace.create({ data: { id: ws, name: 'export' } });
    await p.project.create({
      data: {
        id: 'prj_export',
        workspaceId: ws,
        name: 'H',
        seed: 'https://www.h.test/',
        host: 'www.h.test',
        config: {},
      },
    });
    await p.run.create({ data: { id: run, projectId: 'prj_export', workspaceId: ws, status: 'done' } });
    for (const [position, pg] of pages.entries()) {
      await p.page.create({
        data: {
          id: `pg_${position}`,
          workspaceId: ws,
          runId: run,
          jobId: 'job_export',
          position,
          url: pg.url,
          verdict: pg.verdict,
          data: { head: { title: pg.title, description: pg.description ?? null }, attempts: [{ rung: 'http' }] },
          // Gzip, as rows written before the brotli encoding hold: exports read those too.
          bodies: pg.markdown ? gzipSync(JSON.stringify({ markdown: pg.markdown })) : null,
        },
      });
      await p.crawlUrl.create({
        data: {
          runId: run,
          urlKey: pg.url,
          url: pg.url,
          host: new URL(pg.url).host,
          position,
          depth: position ? 1 : 0,
          foundVia: position ? 'link' : 'seed',
          inLinks: position ? 1 : 0,
          state: 'done',
        },
      });
    }
    service = new ExportService(new RunExportRepository(p), { batchRows: 2, chunkBytes: 64 });
  });
  afterAll(() => db.drop());

  it('reads every row once, by URL, across batches', async () => {
    const rows = (await text({ dataset: 'pages' }))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { url: string });
    expect(rows.map((r) => r.url)).toEqual(pages.map((p) => p.url).sort());
    expect(rows.every((r) => !('attempts' in r))).toBe(true);
  });

  it('orders llms by the site’s own host (www or not) first, then other hosts, by first segment', async () => {
    expect(await text({ dataset: 'llms' })).toBe(
      [
        '# Home of H',
        '',
        '> All about H.',
        '',
        '- [Home of H](https://www.h.test/): All about H.',
        '',
        '## docs',
        '',
        '- [A](https://h.test/docs/a): first',
        '- [Docs](https://www.h.test/docs)',
        '- [B](https://www.h.test/docs/b)',
        '',
        '## x',
        '',
        '- [/x?y=1](https://www.h.test/x?y=1)',
        '',
        '## blog.h.test',
        '',
        '- [Blog](https://blog.h.test/)',
        '',
        '## blog.h.test/2026',
        '',
        '- [Post](https://blog.h.test/2026/post)',
        '',
      ].join('\n'),
    );
  });

  it('writes llms-full in the same order, restricted to listed URLs when asked', async () => {
    expect(await text({ dataset: 'llms-full', urls: ['http://h.test/docs/a/', 'https://blog.h.test'] })).toBe(
      '# A\n\nSource: https://h.test/docs/a\n\nay\n\n# Blog\n\nSource: https://blog.h.test/\n\nblog\n',
    );
  });

  it('gives a header alone when no row is kept, and the project name when there is no home page', async () => {
    expect(await text({ dataset: 'sitemap', format: 'csv', urls: ['https://elsewhere.test/'] })).toBe(
      'url,lastmod,source,inSitemap,section\r\n',
    );
    await db.prisma.page.update({ where: { id: 'pg_0' }, data: { verdict: 'blocked' } });
    try {
      expect((await text({ dataset: 'llms', urls: ['https://www.h.test/docs'] })).split('\n').slice(0, 3)).toEqual([
        '# H',
        '',
        '## docs',
      ]);
    } finally {
      await db.prisma.page.update({ where: { id: 'pg_0' }, data: { verdict: 'ok' } });
    }
  });

  it('refuses before the first message: unknown project, run, or a run not compared yet', async () => {
    const first = (req: Partial<ExportRequest>) => text(req).then(() => 'streamed');
    await expect(first({ projectId: 'prj_nope' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(first({ runId: 'run_nope' })).rejects.toMatchObject({ code: 'not_found', message: 'run not found' });
    await expect(first({ workspaceId: 'ws_other' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(first({ dataset: 'changes' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'change record (the run has not been compared yet) not found',
    });
  });
});
