import { randomUUID } from 'node:crypto';
import type { ApiPath, Body, Method, PathParams, PathsOf, Query, Result } from './api-types.js';
import { TidemarkApiError, TidemarkError, TidemarkNetworkError, TidemarkTimeoutError } from './errors.js';
import {
  AUTO_IDEMPOTENT_POSTS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_MS,
  DEFAULT_TIMEOUT_MS,
  RETRY_STATUSES,
  backoffMs,
  isSafeToRepeat,
  retryAfterMs,
} from './retry.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080/v1';
export const SDK_USER_AGENT = 'tidemark-sdk-ts/0.1';

export interface ClientOptions {
  /** `service_…`; default: the TIDEMARK_API_KEY environment variable. */
  apiKey?: string;
  /** The API root, ending in /v1; default: TIDEMARK_API_URL, else http://127.0.0.1:8080/v1. */
  baseUrl?: string;
  /** Per attempt, until the answer's headers (and, for JSON, its body): default 150 s. */
  timeoutMs?: number;
  /** Retries of a call that is safe to repeat: default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this ends the call instead of being waited out: default 60 s. */
  maxRetryWaitMs?: number;
  /** Headers sent with every call (e.g. x-service-tenant). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /**
   * The Idempotency-Key of a POST: a string sends that key; false sends none; absent, the client
   * mints one for POST /scrape, /crawl and /map (so those are retried safely).
   */
  idempotencyKey?: string | false;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type CallArgs<P extends ApiPath, M extends Method> = ([PathParams<P, M>] extends [never]
  ? { params?: undefined }
  : { params: PathParams<P, M> }) &
  ([Body<P, M>] extends [never] ? { body?: undefined } : { body: Body<P, M> }) & {
    query?: [Query<P, M>] extends [never] ? undefined : Query<P, M>;
  } & RequestOptions;

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  data: T;
  requestId: string | null;
  /** How many times the request was sent (1 + retries). */
  attempts: number;
}

interface RawRequest extends RequestOptions {
  method: Method;
  /** A path under the API root (`/projects/p_1`), or an absolute URL (a `next` link). */
  path: string;
  /** The route template (`/projects/{id}`), for the client's own Idempotency-Key rule. */
  route?: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** Keep the body unread (a streamed export or an image): the timeout stops at the headers. */
  stream?: boolean;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
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

/** `/projects/{id}/runs/{run}` with `{id, run}` filled in (each value escaped). */
export const fillPath = (template: string, params: Record<string, unknown> = {}): string =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`${name} is required`);
    return encodeURIComponent(String(value));
  });

/**
 * The transport under every method: the key, JSON in and out, the error envelope as a typed
 * error, the spec's retry rule and the request timeout.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxRetryWaitMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetchFn: typeof fetch;

  constructor(opts: ClientOptions = {}) {
    const apiKey = opts.apiKey ?? process.env.TIDEMARK_API_KEY;
    if (!apiKey) throw new TypeError('an API key is needed: pass apiKey or set TIDEMARK_API_KEY');
    this.apiKey = apiKey;
    this.baseUrl = (opts.baseUrl ?? process.env.TIDEMARK_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.maxRetryWaitMs = opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    this.headers = { ...opts.headers };
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** One typed call of a route: `call('get', '/projects/{id}', {params: {id}})`. */
  async call<M extends Method, P extends PathsOf<M>>(method: M, route: P, args: CallArgs<P, M>): Promise<Result<P, M>> {
    return (await this.send<Result<P, M>>(this.toRaw(method, route, args))).data;
  }

  /** The same, with the status and headers of the answer (202 vs 200, X-Service-Credits). */
  callWithResponse<M extends Method, P extends PathsOf<M>>(
    method: M,
    route: P,
    args: CallArgs<P, M>,
  ): Promise<ApiResponse<Result<P, M>>> {
    return this.send<Result<P, M>>(this.toRaw(method, route, args));
  }

  /** A call whose answer is a file or an image: the Response with its body unread. */
  async stream<M extends Method, P extends PathsOf<M>>(method: M, route: P, args: CallArgs<P, M>): Promise<Response> {
    return (await this.send<Response>({ ...this.toRaw(method, route, args), stream: true })).data;
  }

  /** GET of an absolute URL the API gave out (a `next` link). */
  async getUrl<T>(url: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.send<T>({ ...opts, method: 'get', path: url })).data;
  }

  /** Whether a URL the API gave out points at this client's API root (so the key may go there). */
  isOwnUrl(url: string): boolean {
    try {
      const u = new URL(url);
      const base = new URL(this.baseUrl);
      return u.origin === base.origin && u.pathname.startsWith(base.pathname);
    } catch {
      return false;
    }
  }

  private toRaw(method: Method, route: string, args: object): RawRequest {
    const { params, query, body, ...opts } = args as RequestOptions & {
      params?: Record<string, unknown>;
      query?: Record<string, unknown>;
      body?: unknown;
    };
    return { ...opts, method, route, path: fillPath(route, params), query, body };
  }

  private urlOf(req: RawRequest): string {
    const url = new URL(/^https?:\/\//.test(req.path) ? req.path : `${this.baseUrl}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined || v === null) continue;
      url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    return url.toString();
  }

  private async send<T>(req: RawRequest): Promise<ApiResponse<T>> {
    const headers = new Headers({
      accept: 'application/json',
      'user-agent': SDK_USER_AGENT,
      ...this.headers,
      ...req.headers,
      authorization: `Bearer ${this.apiKey}`,
    });
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (payload !== undefined) headers.set('content-type', 'application/json');
    if (req.method === 'post' && req.idempotencyKey !== false) {
      if (typeof req.idempotencyKey === 'string') headers.set('idempotency-key', req.idempotencyKey);
      else if (!headers.has('idempotency-key') && req.route && AUTO_IDEMPOTENT_POSTS.has(req.route))
        headers.set('idempotency-key', randomUUID());
    }
    const url = this.urlOf(req);
    const safe = isSafeToRepeat(req.method, headers);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;

    for (let attempt = 1; ; attempt++) {
      const canRetry = safe && attempt <= this.maxRetries;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
      let res: Response;
      try {
        res = await this.fetchFn(url, { method: req.method.toUpperCase(), headers, body: payload, signal });
      } catch (err) {
        clearTimeout(timer);
        if (req.signal?.aborted) throw err;
        if (timeout.signal.aborted) throw new TidemarkTimeoutError(timeoutMs, { attempts: attempt, cause: err });
        if (canRetry) {
          await sleep(backoffMs(attempt), req.signal);
          continue;
        }
        throw new TidemarkNetworkError(`${req.method.toUpperCase()} ${url}: ${describeNetworkError(err)}`, {
          attempts: attempt,
          cause: err,
        });
      }
      const requestId = res.headers.get('x-request-id');

      if (!res.ok) {
        const wait = retryAfterMs(res.headers.get('retry-after'));
        if (canRetry && RETRY_STATUSES.has(res.status) && (wait ?? 0) <= this.maxRetryWaitMs) {
          clearTimeout(timer);
          await res.body?.cancel().catch(() => undefined);
          await sleep(wait ?? backoffMs(attempt), req.signal);
          continue;
        }
        try {
          throw await errorFrom(res, attempt);
        } finally {
          clearTimeout(timer);
        }
      }

      if (req.stream) {
        clearTimeout(timer);
        return { status: res.status, headers: res.headers, data: res as T, requestId, attempts: attempt };
      }
      try {
        const text = await res.text();
        const type = res.headers.get('content-type') ?? '';
        const data = (text === '' ? undefined : type.includes('json') ? JSON.parse(text) : text) as T;
        return { status: res.status, headers: res.headers, data, requestId, attempts: attempt };
      } catch (err) {
        if (timeout.signal.aborted) throw new TidemarkTimeoutError(timeoutMs, { attempts: attempt, cause: err });
        throw new TidemarkNetworkError(`${req.method.toUpperCase()} ${url}: the answer was cut`, {
          attempts: attempt,
          cause: err,
        });
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

const describeNetworkError = (err: unknown): string => {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
};

const STATUS_CODES: Record<number, string> = {
  400: 'validation',
  401: 'unauthorized',
  402: 'plan_limit',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  422: 'validation',
  429: 'rate_limited',
  500: 'internal',
};

/** The error an answer stands for: its envelope when it has one, else one named by its status. */
const errorFrom = async (res: Response, attempts: number): Promise<TidemarkError> => {
  const text = await res.text().catch(() => '');
  let envelope: { error?: unknown; code?: unknown; request_id?: unknown; details?: unknown } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // not JSON: a proxy's page; the status names it
  }
  const retryAfter = retryAfterMs(res.headers.get('retry-after'));
  const code =
    typeof envelope.code === 'string'
      ? envelope.code
      : (STATUS_CODES[res.status] ?? (res.status >= 500 ? 'unavailable' : 'error'));
  const message =
    typeof envelope.error === 'string' ? envelope.error : `${res.status} ${res.statusText || 'error'}`.trim();
  return new TidemarkApiError(message, code, res.status, {
    requestId: typeof envelope.request_id === 'string' ? envelope.request_id : res.headers.get('x-request-id'),
    ...(retryAfter !== null ? { retryAfter: Math.ceil(retryAfter / 1000) } : {}),
    ...(envelope.details !== undefined ? { details: envelope.details } : {}),
    attempts,
  });
};
