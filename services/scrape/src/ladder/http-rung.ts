import got, { type Agents, type Response } from 'got';
import iconv from 'iconv-lite';
import { BlockedAddressError, HostNotFoundError } from '@tidemark/net-guard';
import { detectDocument, type DocumentType } from '../reading/documents/detect.js';
import { FetchFailure } from './fetch-error.js';

export interface Fetched {
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  html: string;
  redirects: string[];
  contentType: string;
  /**
   * A document (PDF, office file, RTF) is carried as its bytes, not decoded (`html` is then
   * empty): the reader reads it on its thread, to which the bytes are transferred, not copied.
   */
  document?: { type: DocumentType; bytes: Uint8Array };
}

/**
 * A connection that breaks (ECONNRESET, EPIPE: most often a kept-alive socket the site closed as
 * it was reused) is tried once more, at once, on a new one, as HTTP clients do for a GET; nothing
 * else is retried here (a crawl tries a page again at its own pace). One object for every fetch.
 */
const BROKEN_CONNECTION_RETRY = {
  limit: 1,
  methods: ['GET' as const],
  statusCodes: [],
  errorCodes: ['ECONNRESET', 'EPIPE'],
  calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue ? 1 : 0),
};

const CHARSET_IN_TYPE = /charset=["']?([\w-]+)/i;
const CHARSET_IN_META = /<meta[^>]+charset=["']?([\w-]+)/i;

/** Decodes a body by its declared charset (header, then <meta>), UTF-8 when none or unknown. */
export const decodeBody = (body: Buffer, contentType: string): string => {
  const declared =
    CHARSET_IN_TYPE.exec(contentType)?.[1] ?? CHARSET_IN_META.exec(body.subarray(0, 4096).toString('latin1'))?.[1];
  const charset = declared && iconv.encodingExists(declared) ? declared : 'utf-8';
  return iconv.decode(body, charset);
};

const flatHeaders = (res: Response): Record<string, string> =>
  Object.fromEntries(
    Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
  );

/** The cheapest rung: one HTTP fetch with got through the guarded agents. */
export class HttpRung {
  constructor(
    private readonly agents: Agents,
    private readonly userAgent: string,
    private readonly maxBodyBytes: number,
  ) {}

  async fetch(url: string, opts: { timeoutMs: number; headers: Record<string, string> }): Promise<Fetched> {
    // got's CancelError says only "Promise was canceled": the reason is kept here.
    let tooLarge: FetchFailure | undefined;
    try {
      const request = got(url, {
        agent: this.agents,
        followRedirect: true,
        maxRedirects: 10,
        throwHttpErrors: false,
        decompress: true,
        responseType: 'buffer',
        retry: BROKEN_CONNECTION_RETRY,
        timeout: { request: opts.timeoutMs },
        headers: {
          'user-agent': this.userAgent,
          accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
          'accept-language': 'en;q=0.9,*;q=0.5',
          ...opts.headers,
        },
      });
      request.on('downloadProgress', (p) => {
        if (p.transferred > this.maxBodyBytes && !tooLarge) {
          tooLarge = new FetchFailure('NETWORK', `page too large: the body is larger than ${this.maxBodyBytes} bytes`);
          request.cancel(tooLarge.message);
        }
      });
      const res = await request;
      const contentType = String(res.headers['content-type'] ?? '');
      const type = detectDocument(contentType, res.rawBody);
      return {
        finalUrl: res.url,
        status: res.statusCode,
        headers: flatHeaders(res),
        html: type ? '' : decodeBody(res.rawBody, contentType),
        redirects: res.redirectUrls.map(String),
        contentType,
        // Copied once into a buffer of its own (got's may share a pooled one), so the reader
        // can take it whole.
        ...(type ? { document: { type, bytes: new Uint8Array(res.rawBody) } } : {}),
      };
    } catch (err) {
      throw tooLarge ?? toFetchFailure(err);
    }
  }
}

export const toFetchFailure = (err: unknown): FetchFailure => {
  if (err instanceof FetchFailure) return err;
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  const cause = e.cause ?? err;
  if (cause instanceof BlockedAddressError) return new FetchFailure('NETWORK', cause.message, err);
  if (cause instanceof HostNotFoundError) return new FetchFailure('NETWORK', cause.message, err);
  if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT')
    return new FetchFailure('TIMEOUT', 'the page did not answer in time', err);
  if (e.name === 'MaxRedirectsError') return new FetchFailure('NETWORK', 'too many redirects', err);
  if (e.name === 'CancelError') return new FetchFailure('NETWORK', e.message ?? 'fetch cancelled', err);
  return new FetchFailure('NETWORK', `${e.code ?? e.name ?? 'error'}: ${e.message ?? 'connection failed'}`, err);
};
