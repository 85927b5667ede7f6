// The app's only way to the server: fetch against /v1 (the same routes as any API client), with
// the session cookie the browser holds. Errors arrive as the spec's envelope and are thrown as
// ApiError, so every screen can show `error` and the `request_id` to quote.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details?: { fields?: { field: string; message: string }[] } & Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A list answer of the API: rows and the ready-made URL of the following page. */
export interface Paged<T> {
  data: T[];
  next: string | null;
  cursor: string | null;
}

type Query = Record<string, string | number | boolean | null | undefined>;

const unauthorizedListeners = new Set<() => void>();
/** Called whenever the API answers 401: the session ended (signed out elsewhere, expired). */
export const onUnauthorized = (listener: () => void): (() => void) => {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
};

export const withQuery = (path: string, query: Query = {}): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
};

/**
 * The path of a `next` link (the API builds it on whatever origin it was asked through): only
 * its path and query are followed, and only under /v1.
 */
export const nextPath = (next: string): string => {
  const url = new URL(next, window.location.origin);
  if (!url.pathname.startsWith('/v1/')) throw new Error(`not an API link: ${next}`);
  return url.pathname + url.search;
};

const envelopeOf = async (res: Response): Promise<ApiError> => {
  const requestId = res.headers.get('x-request-id');
  try {
    const body = (await res.json()) as { error?: string; code?: string; request_id?: string; details?: object };
    return new ApiError(
      res.status,
      body.code ?? 'internal',
      body.error ?? `the API answered ${res.status}`,
      body.request_id ?? requestId,
      body.details as ApiError['details'],
    );
  } catch {
    return new ApiError(res.status, 'internal', `the API answered ${res.status}`, requestId);
  }
};

export const request = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const url = path.startsWith('/v1/') ? path : `/v1${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'unavailable', 'the server could not be reached; check your connection', null);
  }
  if (!res.ok) {
    const err = await envelopeOf(res);
    if (res.status === 401) for (const l of unauthorizedListeners) l();
    throw err;
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
};

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', withQuery(path, query)),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: <T>(path: string, query?: Query) => request<T>('DELETE', withQuery(path, query)),
};
