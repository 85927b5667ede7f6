import type { Request } from 'express';
import { z } from 'zod';

/** Cursors are opaque to callers: the id of the last row, base64url-encoded. */
export const encodeCursor = (id: string): string => Buffer.from(id).toString('base64url');

export const cursorSchema = z
  .string()
  .max(200)
  .transform((c, ctx) => {
    const id = Buffer.from(c, 'base64url').toString();
    if (!/^[a-z]+_[0-9a-z]{26}$/.test(id)) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API gave out' });
      return z.NEVER;
    }
    return id;
  });

/** `limit` and `cursor` with the route's own bounds. */
export const pageQuery = (opts: { min?: number; max: number; default: number }) =>
  z.object({
    cursor: cursorSchema.optional().describe('from the `cursor` of the previous page'),
    limit: z.coerce
      .number()
      .int()
      .min(opts.min ?? 1)
      .max(opts.max)
      .default(opts.default)
      .describe(`page size, ${opts.min ?? 1} to ${opts.max}`),
  });

export interface Page<T> {
  data: T[];
  /** Ready-made URL of the following page, or null when this is the last. */
  next: string | null;
  /** The cursor of the following page, or null. */
  cursor: string | null;
}

/**
 * Where links to the API start: PUBLIC_BASE_URL when set (always, in production); unset, the
 * address this gateway answered on (the socket's, plain http). Never the request's Host header
 * or X-Forwarded-Host, which the caller writes.
 */
export const publicOrigin = (req: Request, publicBaseUrl?: string): string => {
  if (publicBaseUrl) return publicBaseUrl;
  const { localAddress, localPort } = req.socket;
  const host = localAddress?.startsWith('::ffff:') ? localAddress.slice(7) : (localAddress ?? '127.0.0.1');
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
};

/**
 * The ready-made URL of the following page: this request's path and query with the given
 * cursor and limit, on the public origin (above).
 */
export const nextLink = (req: Request, cursor: string, limit: number, publicBaseUrl?: string): string => {
  const url = new URL(`${publicOrigin(req, publicBaseUrl)}${req.baseUrl}${req.path}`);
  for (const [k, v] of Object.entries(req.query))
    if (k !== 'cursor' && k !== 'limit' && typeof v === 'string') url.searchParams.set(k, v);
  url.searchParams.set('cursor', cursor);
  url.searchParams.set('limit', String(limit));
  return url.toString();
};

/**
 * Turns rows fetched with `take: pageSize + 1` into a page: the extra row only says whether a
 * next page exists. `next` keeps every other query parameter of the request.
 */
export const toPage = <R extends { id: string }, T>(
  req: Request,
  rows: R[],
  pageSize: number,
  render: (row: R) => T,
  publicBaseUrl?: string,
): Page<T> => {
  const more = rows.length > pageSize;
  const shown = more ? rows.slice(0, pageSize) : rows;
  const cursor = more ? encodeCursor(shown[shown.length - 1]!.id) : null;
  const next = cursor ? nextLink(req, cursor, pageSize, publicBaseUrl) : null;
  return { data: shown.map(render), next, cursor };
};
