import type { CallOptions, Answer } from '../support/fleet.js';

type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>;

/**
 * One batch job through the public API (`POST /v1/scrape` with `urls`, `perHost` in flight to
 * each host), polled every 20 ms until its last page is in: its pages/s. Throws unless every page
 * read ok, so a figure never counts pages that failed.
 */
export const batchThroughApi = async (call: Call, apiKey: string, urls: string[], perHost: number): Promise<number> => {
  const began = performance.now();
  const started = await call('POST', '/scrape', {
    key: apiKey,
    body: { urls, formats: 'markdown', config: { concurrency: perHost } },
  });
  if (started.status !== 202) throw new Error(`the batch was refused (${started.status}); the figure would lie`);
  let job: { status: string; counts?: { ok?: number } };
  do {
    await new Promise((r) => setTimeout(r, 20));
    job = (await call('GET', `/scrape/${started.body.id}?limit=1`, { key: apiKey })).body;
  } while (['queued', 'running'].includes(job.status));
  if (job.counts?.ok !== urls.length)
    throw new Error(`the batch read ${JSON.stringify(job.counts)} of ${urls.length} pages; the figure would lie`);
  return urls.length / ((performance.now() - began) / 1000);
};
