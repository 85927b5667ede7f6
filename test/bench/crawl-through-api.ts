import type { CallOptions, Answer } from '../support/fleet.js';

type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>;

/**
 * One crawl through the public API, timed from `POST /v1/crawl` to the poll that sees it ended
 * (every 100 ms): the pages it did and the seconds it took.
 */
export const crawlThroughApi = async (
  call: Call,
  apiKey: string,
  body: { url: string; limit: number; concurrency: number },
): Promise<{ pages: number; seconds: number }> => {
  const t0 = performance.now();
  const res = await call('POST', '/crawl', {
    key: apiKey,
    body: { ...body, useSitemap: false, respectRobots: false },
  });
  if (res.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(res.body)}`);
  for (;;) {
    const job = (await call('GET', `/crawl/${res.body.id}?formats=&limit=1`, { key: apiKey })).body;
    if (!job.progress) throw new Error(`crawl read failed: ${JSON.stringify(job)}`);
    if (!['queued', 'running'].includes(job.status))
      return { pages: job.progress.done as number, seconds: (performance.now() - t0) / 1000 };
    await new Promise((r) => setTimeout(r, 100));
  }
};
