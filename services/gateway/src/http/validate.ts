import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { withOutboundUrlCheck, type OutboundUrlCheck } from '@tidemark/contracts';
import { unstorableReason } from '@tidemark/db';
import { ValidationError } from '@tidemark/errors';

type Where = 'body' | 'query' | 'path' | 'header';

/** The request headers the gateway reads (auth, tenant, idempotency, sessions, request id). */
export const HEADERS_READ = [
  'authorization',
  'x-service-tenant',
  'idempotency-key',
  'x-request-id',
  'cookie',
  'user-agent',
] as const;

const describeIssue = (where: Where, issue: z.core.$ZodIssue): { field: string; message: string } => {
  const path = [where, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return { field: path.join('.'), message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
  }
  return { field: path.join('.'), message: issue.message };
};

/** A key as it can be shown (and stored, in an idempotency record): escaped when it is not. */
const shownKey = (key: string) => (unstorableReason(key) ? JSON.stringify(key) : key);

/** The first string in `value` (a key or a value, at any depth) that cannot be stored, and where. */
const findUnstorable = (value: unknown, path: string): { field: string; reason: string } | null => {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason ? { field: path, reason } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const keyReason = unstorableReason(k);
    if (keyReason) return { field: `${path}.${shownKey(k)}`, reason: `its name ${keyReason}` };
    const found = findUnstorable(v, `${path}.${k}`);
    if (found) return found;
  }
  return null;
};

const statusOf = (where: Where): 400 | 422 => (where === 'body' ? 422 : 400);

/**
 * Refuses strings no part of Tidemark can store or pass on: a NUL character or a lone UTF-16
 * surrogate (PostgreSQL refuses both; before this they reached a write and answered 500). The
 * error names the field, like every validation error: 422 in a body, 400 elsewhere.
 */
export const refuseUnstorable = (value: unknown, where: Where): void => {
  const found = findUnstorable(value, where);
  if (!found) return;
  const message = `${found.field}: ${found.reason}`;
  throw new ValidationError(message, { fields: [{ field: found.field, message: found.reason }] }, statusOf(where));
};

/**
 * A pipeline step for every route (after the body is parsed, before idempotency records
 * anything): the query, the body and the headers the gateway reads. Path parameters are
 * checked by `validate`, once the route is known.
 */
export const refuseUnstorableInput = (req: Request, _res: Response, next: NextFunction): void => {
  refuseUnstorable(req.query, 'query');
  if (req.body !== undefined) refuseUnstorable(req.body, 'body');
  for (const name of HEADERS_READ) {
    const value = req.get(name);
    if (value !== undefined) refuseUnstorable({ [name]: value }, 'header');
  }
  next();
};

/**
 * Parses one part of a request. The error names the field (`body.config.max_pages: ...`) and
 * lists every problem in details.fields. A bad body is 422; a bad query or path is 400. With
 * `outbound`, the fetch guard judges every URL field Tidemark sends to or fetches later (webhooks,
 * chat, feeds, URL lists, seeds), so a refused address is one more named field.
 */
export const validate = <S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: Exclude<Where, 'header'>,
  outbound?: OutboundUrlCheck,
): z.output<S> => {
  refuseUnstorable(value, where);
  const result = outbound ? withOutboundUrlCheck(outbound, () => schema.safeParse(value)) : schema.safeParse(value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((i) => describeIssue(where, i));
  const first = fields[0]!;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : '';
  throw new ValidationError(`${first.field}: ${first.message}${more}`, { fields }, statusOf(where));
};
