import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '@tidemark/contracts';
import type { Job } from '@tidemark/db';
import { createTestDatabase, type TestDatabase } from '@tidemark/testkit';
import { JobCache } from '../src/jobs/job-cache.js';
import { jobPageOptions } from '../src/jobs/job-page.js';
import { JobRepository } from '../src/repositories/job.repository.js';
import { PageRepository } from '../src/repositories/page.repository.js';

// A batch's pages each need their job; reading it (and parsing its stored request, every URL of
// the batch) once a page made a 500-URL batch parse 250,000 URLs. The cache keeps what does not
// change; the claim still sees a cancel made after the job was cached.

describe('the jobs a replica reads pages of, read once', () => {
  let db: TestDatabase;
  let jobs: JobRepository;
  let pages: PageRepository;
  const urls = Array.from({ length: 300 }, (_, i) => `https://tides.test/charts/${i}`);

  beforeAll(async () => {
    db = await createTestDatabase();
    jobs = new JobRepository(db.prisma, db.raw);
    pages = new PageRepository(db.prisma, db.raw);
    await db.prisma.workspace.create({ data: { id: 'ws_cache', name: 'cache' } });
  });
  afterAll(() => db.drop());

  const batch = async (id: string): Promise<void> => {
    await db.prisma.job.create({
      data: {
        id,
        workspaceId: 'ws_cache',
        kind: 'scrape',
        status: 'running',
        progress: { done: 0, total: urls.length, queued: urls.length },
        request: { urls, formats: 'markdown,links', batch: true },
      },
    });
    await pages.createQueued('ws_cache', id, urls);
  };

  const counting = () => {
    const reads: string[] = [];
    const cache = new JobCache(async (id) => {
      reads.push(id);
      return jobs.findById(id);
    }, 2);
    return { cache, reads };
  };

  it('reads a job once for all its pages, and parses its request once', async () => {
    await batch('job_cache_a');
    const { cache, reads } = counting();
    const seen: Job[] = [];
    for (let i = 0; i < 5; i++) seen.push((await cache.get('job_cache_a'))!);
    expect(reads).toEqual(['job_cache_a']);
    expect(new Set(seen).size).toBe(1);
    expect(jobPageOptions(seen[0]!)).toBe(jobPageOptions(seen[4]!));
    expect(jobPageOptions(seen[0]!).formats).toEqual(['markdown', 'links']);
  });

  it('takes the options of a request already parsed (a one-URL scrape) without parsing it again', async () => {
    await batch('job_cache_f');
    const job = (await jobs.findById('job_cache_f'))!;
    // Stand-in for the request as the call parsed it: what the options are built from.
    const parsed = scrapeRequestSchema.parse({ url: 'https://tides.test/charts/0', formats: 'text' });
    expect(jobPageOptions(job, parsed).formats).toEqual(['text']);
    expect(jobPageOptions(job).formats).toEqual(['text']);
  });

  it('keeps the most recently used jobs, forgets an ended one, and answers a missing one as null', async () => {
    await batch('job_cache_b');
    await batch('job_cache_c');
    const { cache, reads } = counting();
    await cache.get('job_cache_a');
    await cache.get('job_cache_b');
    await cache.get('job_cache_a'); // a is now the most recent: c's arrival evicts b
    await cache.get('job_cache_c');
    await cache.get('job_cache_a');
    await cache.get('job_cache_b');
    expect(reads).toEqual(['job_cache_a', 'job_cache_b', 'job_cache_c', 'job_cache_b']);
    cache.forget('job_cache_b');
    await cache.get('job_cache_b');
    expect(reads.at(-1)).toBe('job_cache_b');
    expect(reads).toHaveLength(5);
    expect(await cache.get('job_nowhere')).toBeNull();
  });

  it('does not keep a cancelled job, and a cancel after caching still stops the claim', async () => {
    await batch('job_cache_d');
    const { cache, reads } = counting();
    expect((await cache.get('job_cache_d'))!.status).toBe('running');
    expect(await jobs.cancel('ws_cache', 'job_cache_d')).toBeTruthy();
    // The cached job still says running; the claim reads the job as it stands.
    expect((await cache.get('job_cache_d'))!.status).toBe('running');
    expect(
      await pages.claimMany([{ jobId: 'job_cache_d', position: 0, reclaim: true }]).then(([taken]) => taken === true),
    ).toBe(false);

    await batch('job_cache_e');
    await jobs.cancel('ws_cache', 'job_cache_e');
    expect((await cache.get('job_cache_e'))!.status).toBe('cancelled');
    await cache.get('job_cache_e');
    expect(reads.filter((id) => id === 'job_cache_e')).toHaveLength(2);
  });
});
