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

/** What the browser pool says went wrong (its README, "Errors"), from the error's details. */
const renderFailure = (err: unknown): string | undefined =>
  err instanceof ApiError ? ((err.meta.details as { reason?: string } | undefined)?.reason ?? undefined) : undefined;

/**
 * A failed render as the ladder understands it: the page's own failures become TIMEOUT or
 * NETWORK; a pool that cannot be reached is BrowserUnavailable; a busy pool stays a retryable
 * ApiError, so the work message is tried again later.
 */
const toLadderError = (err: unknown, reason: string | undefined): Error => {
  const message = err instanceof Error ? err.message : 'render failed';
  switch (reason) {
    case 'timeout':
      return new FetchFailure('TIMEOUT', message, err);
    case 'blocked_address':
    case 'network':
    case 'crashed':
    case 'exit_failed':
      return new FetchFailure('NETWORK', message, err);
    case 'busy':
      return err as Error;
    default:
      if (err instanceof ApiError && err.code === 'unavailable') return new BrowserUnavailable(err);
      return new FetchFailure('NETWORK', message, err);
  }
};

export interface RenderOptions {
  timeoutMs: number;
  headers: Record<string, string>;
  waitForMs: number;
  screenshot: boolean;
  useExit: boolean;
}

/** The browser rungs: a render by services/browser-pool, directly or through a residential exit. */
export class BrowserRung {
  constructor(private readonly pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>) {}

  private request(url: string, opts: RenderOptions): browserPoolV1.RenderRequest {
    return {
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
    };
  }

  async fetch(url: string, opts: RenderOptions): Promise<Rendered> {
    let res: browserPoolV1.RenderResponse | undefined;
    // A crashed tab or a failed exit is the pool's trouble, not the page's: one more try.
    for (let attempt = 1; !res; attempt++) {
      try {
        res = await this.pool.call('render', this.request(url, opts), opts.timeoutMs + 20_000);
      } catch (err) {
        const reason = renderFailure(err);
        if ((reason === 'crashed' || reason === 'exit_failed') && attempt < 2) continue;
        throw toLadderError(err, reason);
      }
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
