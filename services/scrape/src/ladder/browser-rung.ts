import { browserPoolV1 } from '@tidemark/contracts';
import { ApiError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import { FetchFailure } from './fetch-error.js';
import type { Fetched } from './http-rung.js';

export interface Rendered extends Fetched {
  widget: string;
  solved: string;
  exitBytes: number;
  screenshot?: Buffer;
}

/** The browser pool could not be reached: the ladder keeps what the rung below read. */
export class BrowserUnavailable extends Error {
  constructor(cause: unknown) {
    super('the browser tier is unavailable', { cause });
    this.name = 'BrowserUnavailable';
  }
}

/** The browser rungs: a render by services/browser-pool, directly or through a residential exit. */
export class BrowserRung {
  constructor(private readonly pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>) {}

  async fetch(
    url: string,
    opts: {
      timeoutMs: number;
      headers: Record<string, string>;
      waitForMs: number;
      screenshot: boolean;
      useExit: boolean;
    },
  ): Promise<Rendered> {
    let res: browserPoolV1.RenderResponse;
    try {
      res = await this.pool.call(
        'render',
        {
          url,
          headers: opts.headers,
          cookies: [],
          viewportWidth: 1366,
          viewportHeight: 900,
          waitUntil: 'load',
          waitForMs: opts.waitForMs,
          waitForSelector: '',
          timeoutMs: opts.timeoutMs,
          screenshot: opts.screenshot,
          screenshotFullPage: false,
          useExit: opts.useExit,
          blockMedia: !opts.screenshot,
        },
        opts.timeoutMs + 5_000,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unavailable') throw new BrowserUnavailable(err);
      if (err instanceof ApiError && /timeout|timed out/i.test(err.message))
        throw new FetchFailure('TIMEOUT', err.message, err);
      throw new FetchFailure('NETWORK', err instanceof Error ? err.message : 'render failed', err);
    }
    return {
      finalUrl: res.finalUrl || url,
      status: res.status,
      headers: res.headers,
      html: res.html,
      redirects: res.redirects,
      contentType: res.headers['content-type'] ?? 'text/html',
      widget: res.widget,
      solved: res.solved,
      exitBytes: res.exitBytes,
      ...(res.screenshotJpeg.length ? { screenshot: Buffer.from(res.screenshotJpeg) } : {}),
    };
  }
}
