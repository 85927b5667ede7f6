import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema, type browserPoolV1, type EngineRung, type PageErrorCode } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { createLogger } from '@tidemark/telemetry';
import type { BrowserRung, Rendered, RenderOptions } from '../src/ladder/browser-rung.js';
import { DeploymentRungs, type RungsPort } from '../src/ladder/deployment-rungs.js';
import type { Fetched, HttpRung } from '../src/ladder/http-rung.js';
import { LadderService, type CachePort, type CreditsPort } from '../src/ladder/ladder.service.js';
import { resolveOptions } from '../src/ladder/options.js';
import type { RobotsCheck } from '../src/ladder/robots-check.js';
import type { PageReaderPool } from '../src/reading/page-reader-pool.js';
import type { PageReading } from '../src/reading/read-page.js';

const logger = createLogger('test', 'silent');
const URL = 'http://site.test/page';

/** What each rung's fetch reads as: the verdict the reader gives, by the tier that fetched it. */
type Reads = Partial<Record<'http' | 'browser', { errorCode: PageErrorCode; signals: string[]; widget?: string }>>;

const reading = (errorCode: PageErrorCode, signals: string[]): PageReading =>
  ({
    verdict: {
      verdict: errorCode === 'OK' ? 'ok' : 'blocked',
      errorCode,
      warnings: [],
      signals,
      climb: errorCode !== 'OK',
    },
    content: { words: errorCode === 'OK' ? 300 : 4, language: 'en', head: {} },
  }) as unknown as PageReading;

/** A fetched page; its html says whether it stands in the way (`blocked`) or is `read`. */
const fetched = (status: number, html: 'blocked' | 'read'): Fetched => ({
  finalUrl: URL,
  status,
  headers: {},
  html,
  redirects: [],
  contentType: 'text/html',
});

/** A ladder over fake rungs that answer `reads`; `exits` says whether the deployment has residential exits. */
const ladderFor = (reads: Reads, exits: boolean, status = 200) => {
  const renders: RenderOptions[] = [];
  const http = { fetch: async () => fetched(status, reads.http ? 'blocked' : 'read') } as unknown as HttpRung;
  const browser = {
    fetch: async (_url: string, opts: RenderOptions): Promise<Rendered> => {
      renders.push(opts);
      // Through an exit the page is read; directly it stands as `reads.browser` says.
      if (opts.useExit || !reads.browser) return { ...fetched(200, 'read'), widget: '', solved: '', exitBytes: 0 };
      const widget = reads.browser.widget ?? '';
      return { ...fetched(status, 'blocked'), widget, solved: widget ? 'none' : '', exitBytes: 0 };
    },
  } as unknown as BrowserRung;
  const credits: CreditsPort = { authorize: async () => {}, charge: async () => {} };
  const cache: CachePort = { fresh: async () => null };
  const reader = {
    read: async (f: Fetched, tier: 'http' | 'browser') => {
      const read = f.html === 'blocked' ? reads[tier] : undefined;
      return read ? reading(read.errorCode, read.signals) : reading('OK', ['main']);
    },
  } as unknown as PageReaderPool;
  const rungs: RungsPort = { has: async (rung: EngineRung) => rung !== 'browser+exit' || exits };
  const ladder = new LadderService(
    http,
    browser,
    credits,
    cache,
    reader,
    { allows: async () => true } as unknown as RobotsCheck,
    logger,
    (sealed) => sealed,
    rungs,
  );
  const scrape = async (maxTier: 'http' | 'browser' | 'browser+exit') =>
    (
      await ladder.scrape(
        { workspaceId: 'ws', jobId: 'job', position: 0, url: URL },
        resolveOptions(scrapeRequestSchema.parse({ url: URL, config: { maxTier } })),
      )
    ).row;
  return { scrape, renders };
};

const captcha: Reads = {
  http: { errorCode: 'CAPTCHA', signals: ['captcha recaptcha'] },
  browser: { errorCode: 'CAPTCHA', signals: ['captcha recaptcha'], widget: 'recaptcha' },
};

describe('LadderService: what stood in the way', () => {
  it('reports a captcha as CAPTCHA, widget named, when the deployment has no residential exits', async () => {
    const { scrape, renders } = ladderFor(captcha, false);
    for (const maxTier of ['browser', 'browser+exit'] as const) {
      const row = await scrape(maxTier);
      expect([maxTier, row]).toEqual([
        maxTier,
        expect.objectContaining({
          verdict: 'blocked',
          errorCode: 'CAPTCHA',
          method: 'browser',
          climbedTo: 'browser',
          widget: 'recaptcha',
          solved: 'none',
          credits: 5,
        }),
      ]);
      expect(row.reason).toMatch(/captcha/i);
      expect(row.reason).not.toMatch(/maxTier|browser\+exit/);
      expect(row.warnings).toEqual([]);
    }
    // browser+exit was never tried: there is none to try.
    expect(renders.map((r) => r.useExit)).toEqual([false, false]);
  });

  it('reports a 451 as GEO_RESTRICTED and a challenge as BLOCKED, with their signals', async () => {
    const geo = ladderFor(
      {
        http: { errorCode: 'GEO_RESTRICTED', signals: ['http 451'] },
        browser: { errorCode: 'GEO_RESTRICTED', signals: ['http 451'] },
      },
      false,
      451,
    );
    expect(await geo.scrape('browser')).toMatchObject({
      errorCode: 'GEO_RESTRICTED',
      climbedTo: 'browser',
      reason: expect.stringContaining('http 451'),
    });
    const challenge = ladderFor(
      {
        http: { errorCode: 'BLOCKED', signals: ['challenge', 'host fingerprint'] },
        browser: { errorCode: 'BLOCKED', signals: ['challenge', 'host fingerprint'] },
      },
      false,
      403,
    );
    expect(await challenge.scrape('browser+exit')).toMatchObject({
      errorCode: 'BLOCKED',
      climbedTo: 'browser',
      reason: expect.stringContaining('challenge'),
    });
  });

  it('reports TIER_LIMIT naming browser+exit when the deployment has exits and maxTier is browser', async () => {
    const { scrape, renders } = ladderFor(captcha, true);
    const row = await scrape('browser');
    expect(row).toMatchObject({
      verdict: 'blocked',
      errorCode: 'TIER_LIMIT',
      method: 'browser',
      climbedTo: 'browser',
      widget: 'recaptcha',
      credits: 5,
    });
    expect(row.reason).toMatch(/captcha recaptcha.*the browser\+exit rung would be needed; maxTier is browser/);
    expect(renders.map((r) => r.useExit)).toEqual([false]);
  });

  it('climbs to browser+exit when the deployment has exits and maxTier allows it', async () => {
    const { scrape, renders } = ladderFor(captcha, true);
    expect(await scrape('browser+exit')).toMatchObject({
      verdict: 'ok',
      errorCode: 'OK',
      method: 'browser+exit',
      climbedTo: 'browser+exit',
      credits: 10,
    });
    expect(renders.map((r) => r.useExit)).toEqual([false, true]);
  });

  it('reports TIER_LIMIT naming the browser at maxTier http: every deployment has a browser rung', async () => {
    const { scrape } = ladderFor({ http: { errorCode: 'SHELL', signals: ['app shell'] } }, false);
    const row = await scrape('http');
    expect(row).toMatchObject({ errorCode: 'TIER_LIMIT', method: 'http', climbedTo: 'http', credits: 1 });
    expect(row.reason).toMatch(/app shell.*the browser rung would be needed; maxTier is http/);
  });
});

describe('DeploymentRungs', () => {
  const poolWith = (answers: Array<number | Error>) => {
    let calls = 0;
    const pool = {
      call: async () => {
        const answer = answers[Math.min(calls++, answers.length - 1)]!;
        if (answer instanceof Error) throw answer;
        return { exits: Array.from({ length: answer }, (_, i) => ({ id: `exit-${i + 1}` })) };
      },
    } as unknown as RpcClient<browserPoolV1.BrowserPoolServiceClient>;
    return { pool, calls: () => calls };
  };

  it('has http and the browser always, without asking the pool', async () => {
    const { pool, calls } = poolWith([0]);
    const rungs = new DeploymentRungs(pool, logger);
    expect([await rungs.has('http'), await rungs.has('browser')]).toEqual([true, true]);
    expect(calls()).toBe(0);
  });

  it('has browser+exit only when the pool lists exits, and keeps the answer', async () => {
    const none = poolWith([0]);
    const without = new DeploymentRungs(none.pool, logger);
    expect(await Promise.all([without.has('browser+exit'), without.has('browser+exit')])).toEqual([false, false]);
    expect(await without.has('browser+exit')).toBe(false);
    expect(none.calls()).toBe(1);
    const two = poolWith([2]);
    expect(await new DeploymentRungs(two.pool, logger).has('browser+exit')).toBe(true);
  });

  it('leaves browser+exit out while the pool cannot be asked, and asks again on the next page', async () => {
    const flaky = poolWith([new Error('unavailable'), 1]);
    const rungs = new DeploymentRungs(flaky.pool, logger);
    expect(await rungs.has('browser+exit')).toBe(false);
    expect(await rungs.has('browser+exit')).toBe(true);
    expect(flaky.calls()).toBe(2);
  });
});

describe('LadderService: what is written while a page is read (PageRef.ready)', () => {
  /** A ladder whose credits and http rung say, in order, what happened. */
  const recording = () => {
    const events: string[] = [];
    const credits: CreditsPort = {
      authorize: async (_ws, ref, n) => void events.push(`hold ${ref} ${n}`),
      charge: async (_ws, ref, n) => void events.push(`charge ${ref} ${n}`),
    };
    const http = {
      fetch: async () => {
        events.push('fetch');
        return fetched(200, 'read');
      },
    } as unknown as HttpRung;
    const ladder = new LadderService(
      http,
      {} as BrowserRung,
      credits,
      { fresh: async () => null },
      { read: async () => reading('OK', ['main']) } as unknown as PageReaderPool,
      { allows: async () => true } as unknown as RobotsCheck,
      logger,
      (sealed) => sealed,
      { has: async () => true },
    );
    const scrape = (ready: Promise<unknown>) =>
      ladder.scrape(
        { workspaceId: 'ws', jobId: 'job', position: 0, url: URL, ready },
        resolveOptions(scrapeRequestSchema.parse({ url: URL })),
      );
    return { events, scrape };
  };

  it('fetches and reads meanwhile, and prices the page only once what is written stands', async () => {
    const { events, scrape } = recording();
    let stand!: () => void;
    const ready = new Promise<void>((resolve) => (stand = resolve));
    const page = scrape(ready);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['hold page:job:0:http 1', 'fetch']);
    events.push('stands');
    stand();
    const result = await page;
    expect(result.row.verdict).toBe('ok');
    expect(events).toEqual(['hold page:job:0:http 1', 'fetch', 'stands', 'charge page:job:0:http 1']);
  });

  it('charges nothing and releases its hold when what is written fails', async () => {
    const { events, scrape } = recording();
    const failure = new Error('the job could not be written');
    const ready = Promise.reject(failure);
    ready.catch(() => undefined); // awaited once the page is read
    await expect(scrape(ready)).rejects.toBe(failure);
    expect(events).toEqual(['hold page:job:0:http 1', 'fetch', 'charge page:job:0:http 0']);
  });
});
