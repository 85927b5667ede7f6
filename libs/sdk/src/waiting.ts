export const ACTIVE_STATUSES: ReadonlySet<string> = new Set(['queued', 'running']);

export interface WaitOptions<T> {
  /** Between two polls: default 1,000 ms. */
  intervalMs?: number;
  /** Give up after this long (a TimeoutError, the job goes on): default none. */
  timeoutMs?: number;
  /** Called with every state read, the last (ended) one included. */
  onProgress?: (state: T) => void;
  signal?: AbortSignal;
}

export class WaitTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} still running after ${Math.round(ms / 1000)} s`);
    this.name = new.target.name;
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/** Reads `read()` until `done(state)`; answers the last state read. */
export const pollUntil = async <T>(
  what: string,
  read: () => Promise<T>,
  done: (state: T) => boolean,
  opts: WaitOptions<T> = {},
): Promise<T> => {
  const started = Date.now();
  const interval = opts.intervalMs ?? 1000;
  for (;;) {
    opts.signal?.throwIfAborted();
    const state = await read();
    opts.onProgress?.(state);
    if (done(state)) return state;
    if (opts.timeoutMs !== undefined && Date.now() - started + interval > opts.timeoutMs)
      throw new WaitTimeoutError(what, opts.timeoutMs);
    await pause(interval, opts.signal);
  }
};

/** A job (scrape, crawl, map) or run has ended: done, error or cancelled. */
export const hasEnded = (state: { status: string }): boolean => !ACTIVE_STATUSES.has(state.status);
