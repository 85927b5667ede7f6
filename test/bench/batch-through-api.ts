import type { TestWeb } from '@tidemark/testkit';
import type { CallOptions, Answer } from '../support/fleet.js';

/** The longest a batch's webhook is waited for. */
const HOOK_WAIT_MS = 300_000;

type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>;

/**
 * Where a batch's end is heard: a host of the test web that notes when a webhook first arrives
 * on each path (a batch's `batch.finished` and `scrape.completed` go to its `webhook_url` as it
 * ends). The fleet reaches it through FETCH_HOST_MAP and its fetch guard, as any webhook.
 */
export interface BatchEndHooks {
  /** A `webhook_url` of its own for one batch. */
  url(): string;
  /** When (performance.now()) the first webhook came to that address. */
  arrival(url: string): Promise<number>;
}

export const batchEndHooks = (web: TestWeb, host = 'hooks.bench.test'): BatchEndHooks => {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  let made = 0;
  web.addSite(host, {
    '*': (req) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!arrived.has(path)) {
        const at = performance.now();
        arrived.set(path, at);
        waiting.get(path)?.(at);
        waiting.delete(path);
      }
      return { status: 204, body: '' };
    },
  });
  return {
    url: () => web.url(host, `/batch-${++made}`),
    arrival: (url) => {
      const path = new URL(url).pathname;
      const at = arrived.get(path);
      return at !== undefined ? Promise.resolve(at) : new Promise((resolve) => waiting.set(path, resolve));
    },
  };
};

/**
 * One batch job through the public API (`POST /v1/scrape` with `urls`, `perHost` in flight to
 * each host): its pages/s. Its end is learnt by polling `GET /v1/scrape/{id}` every 20 ms, or,
 * given `hooks`, from its webhook, as a client that waits for `batch.finished` learns it (a poll
 * every 20 ms costs the fleet ~2–3 ms of CPU each on this machine, work the batch's pages share
 * the cores with). Throws unless every page read ok, so a figure never counts pages that failed.
 */
export const batchThroughApi = async (
  call: Call,
  apiKey: string,
  urls: string[],
  perHost: number,
  hooks?: BatchEndHooks,
): Promise<number> => {
  const webhook = hooks?.url();
  const began = performance.now();
  const started = await call('POST', '/scrape', {
    key: apiKey,
    body: { urls, formats: 'markdown', config: { concurrency: perHost }, ...(webhook ? { webhook_url: webhook } : {}) },
  });
  if (started.status !== 202) throw new Error(`the batch was refused (${started.status}); the figure would lie`);
  const read = async () =>
    (await call('GET', `/scrape/${started.body.id}?limit=1`, { key: apiKey })).body as {
      status: string;
      counts?: { ok?: number };
    };
  let job: Awaited<ReturnType<typeof read>>;
  let ended: number;
  if (hooks && webhook) {
    let timer: NodeJS.Timeout | undefined;
    // A webhook that never comes (delivery refused it, say) fails the bench rather than hangs it.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the batch's webhook did not come within ${HOOK_WAIT_MS} ms`)),
        HOOK_WAIT_MS,
      );
    });
    ended = await Promise.race([hooks.arrival(webhook), late]).finally(() => clearTimeout(timer));
    job = await read();
  } else {
    do {
      await new Promise((r) => setTimeout(r, 20));
      job = await read();
    } while (['queued', 'running'].includes(job.status));
    ended = performance.now();
  }
  if (job.status !== 'done' || job.counts?.ok !== urls.length)
    throw new Error(
      `the batch ended ${job.status} having read ${JSON.stringify(job.counts)} of ${urls.length} pages; the figure would lie`,
    );
  return urls.length / ((ended - began) / 1000);
};
