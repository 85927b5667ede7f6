import type { Readable } from 'node:stream';
import got, { type Agents } from 'got';
import { BlockedAddressError, HostNotFoundError } from '@tidemark/net-guard';

/** One file as it starts to arrive: its status and an unread body stream. */
export interface OpenedFile {
  status: number;
  /** Where redirects ended. */
  finalUrl: string;
  contentType: string;
  /** The body, already freed of any Content-Encoding; not yet read. Destroy it when done. */
  body: Readable;
}

/** A file that gave no answer at all: `reason` says why in a sentence for the errors list. */
export class FileFetchError extends Error {
  constructor(
    readonly reason: string,
    /** The status of the last redirect when redirects ran out. */
    readonly redirectStatus: number | null = null,
    cause?: unknown,
    /** The system's error code of a connection that failed (ECONNRESET, …). */
    readonly code: string | null = null,
  ) {
    super(reason, { cause });
    this.name = 'FileFetchError';
  }
}

/** Codes of a connection that broke before its answer: tried once more (FileFetcher.open). */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

const ACCEPT =
  'application/xml, text/xml;q=0.9, application/rss+xml, application/atom+xml, text/plain;q=0.8, */*;q=0.5';

/**
 * Opens files as streams with got through the guarded agents (private addresses refused unless
 * FETCH_ALLOW_NETWORKS, FETCH_HOST_MAP for test hosts), so a redirect cannot slip past the
 * guard either. Nothing is buffered here: the caller reads the body at its own pace.
 */
export class FileFetcher {
  constructor(
    private readonly agents: Agents,
    private readonly userAgent: string,
  ) {}

  /**
   * A connection that breaks before any answer (a kept-alive socket the site closed as it was
   * reused: ECONNRESET, EPIPE) is tried once more on a new one, as HTTP clients do for a GET.
   * Unanswered, robots.txt reads as disallowing everything (RFC 9309): a crawl of a site that
   * answers must not be lost to one stale socket.
   */
  async open(url: string, timeoutMs: number, accept = ACCEPT): Promise<OpenedFile> {
    const began = Date.now();
    try {
      return await this.openOnce(url, timeoutMs, accept);
    } catch (err) {
      const left = timeoutMs - (Date.now() - began);
      if (!(err instanceof FileFetchError) || !STALE_CONNECTION.has(err.code ?? '') || left < 1) throw err;
      return this.openOnce(url, left, accept);
    }
  }

  private openOnce(url: string, timeoutMs: number, accept: string): Promise<OpenedFile> {
    return new Promise((resolve, reject) => {
      let stream: ReturnType<typeof got.stream>;
      try {
        stream = got.stream(url, {
          agent: this.agents,
          followRedirect: true,
          maxRedirects: 5,
          throwHttpErrors: false,
          decompress: true,
          retry: { limit: 0 },
          timeout: { request: Math.max(1, timeoutMs) },
          headers: { 'user-agent': this.userAgent, accept },
        });
      } catch (err) {
        reject(toFileFetchError(err, timeoutMs));
        return;
      }
      stream.once('response', (res: { statusCode: number; url: string; headers: Record<string, unknown> }) =>
        resolve({
          status: res.statusCode,
          finalUrl: res.url,
          contentType: String(res.headers['content-type'] ?? ''),
          body: stream,
        }),
      );
      // Stays attached for the body's lifetime too, so a late error is never an unhandled one;
      // the reader sees it through its iterator.
      stream.on('error', (err) => reject(toFileFetchError(err, timeoutMs)));
    });
  }
}

export const toFileFetchError = (err: unknown, timeoutMs: number): FileFetchError => {
  if (err instanceof FileFetchError) return err;
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    cause?: unknown;
    response?: { statusCode?: number };
  };
  const cause = e.cause ?? err;
  if (cause instanceof BlockedAddressError) return new FileFetchError(cause.message, null, err);
  if (cause instanceof HostNotFoundError) return new FileFetchError(`${cause.host} could not be resolved`, null, err);
  if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT')
    return new FileFetchError(`no complete answer within ${timeoutMs} ms`, null, err);
  if (e.name === 'MaxRedirectsError')
    return new FileFetchError('more than 5 redirects', e.response?.statusCode ?? null, err);
  return new FileFetchError(
    `${e.code ?? e.name ?? 'error'}: ${e.message ?? 'connection failed'}`,
    null,
    err,
    e.code ?? null,
  );
};
