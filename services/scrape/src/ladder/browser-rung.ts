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
  /** What the row should say of the screenshot asked for: clipped, or why it is missing. */
  screenshotNote?: string;
}

/** The screenshot a page asks for (config output.screenshot). */
export interface ScreenshotSpec {
  full_page: boolean;
  width: number;
  format: 'jpeg' | 'png';
  quality: number;
}

/** The tallest full-page screenshot the pool takes (its MAX_SHOT_HEIGHT). */
const MAX_SHOT_HEIGHT = 16_384;

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
    case 'too_large':
      return new FetchFailure('NETWORK', message, err);
    case 'busy':
      return err as Error;
    default:
      if (err instanceof ApiError && err.code === 'unavailable') return new BrowserUnavailable(err);
      return new FetchFailure('NETWORK', message, err);
  }
};

/** A screenshot asked for that is missing or cut short, in the row's words. */
const screenshotNote = (asked: ScreenshotSpec | null, res: browserPoolV1.RenderResponse): string | undefined => {
  if (!asked) return undefined;
  if (res.screenshotOmitted) return `screenshot not kept: ${res.screenshotOmitted}`;
  if (!res.screenshot.length) return 'screenshot not taken';
  if (asked.full_page && res.pageHeight > MAX_SHOT_HEIGHT)
    return `screenshot clipped at ${MAX_SHOT_HEIGHT} px: the page is ${res.pageHeight} px high`;
  return undefined;
};

export interface RenderOptions {
  timeoutMs: number;
  headers: Record<string, string>;
  waitForMs: number;
  /** The screenshot to take; null for none. */
  screenshot: ScreenshotSpec | null;
  useExit: boolean;
}

/** The browser rungs: a render by services/browser-pool, directly or through a residential exit. */
export class BrowserRung {
  constructor(
    private readonly pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>,
    /** The http rung's body cap: the rendered DOM may be no larger. */
    private readonly maxHtmlBytes: number,
  ) {}

  private request(url: string, opts: RenderOptions): browserPoolV1.RenderRequest {
    return {
      url,
      headers: opts.headers,
      cookies: [],
      viewportWidth: opts.screenshot?.width ?? 1366,
      viewportHeight: 900,
      waitUntil: 'load',
      waitForMs: opts.waitForMs,
      waitForSelector: '',
      timeoutMs: opts.timeoutMs,
      screenshot: opts.screenshot !== null,
      screenshotFullPage: opts.screenshot?.full_page ?? false,
      screenshotFormat: opts.screenshot?.format ?? '',
      screenshotQuality: opts.screenshot?.quality ?? 0,
      useExit: opts.useExit,
      blockMedia: opts.screenshot === null,
      maxHtmlBytes: this.maxHtmlBytes,
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
      ...(res.screenshot.length ? { screenshot: Buffer.from(res.screenshot) } : {}),
      ...(screenshotNote(opts.screenshot, res) ? { screenshotNote: screenshotNote(opts.screenshot, res) } : {}),
    };
  }
}
