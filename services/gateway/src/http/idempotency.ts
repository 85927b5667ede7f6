import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ConflictError, ValidationError } from '@tidemark/errors';
import type { IdempotencyRepository } from '../repositories/idempotency.repository.js';
import type { ReplyObserver } from './reply.js';
import type { AuthContext } from './route.js';

const TTL_MS = 24 * 3600 * 1000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

const hashBody = (body: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('hex');

/**
 * Idempotency-Key on POST: the first answer is kept 24 hours and replayed to any repeat
 * (header Idempotent-Replayed: true). The key belongs to the route it was first used on and to
 * that request body; reusing it elsewhere is refused. Server faults (5xx) are not kept, so a
 * retry after one runs again.
 */
export const idempotency =
  (records: IdempotencyRepository) =>
  async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    if (!KEY_FORMAT.test(key)) {
      throw new ValidationError('Idempotency-Key must be 1 to 255 printable ASCII characters', undefined, 400);
    }
    const auth = res.locals.auth as AuthContext;
    const route = `POST ${req.baseUrl}${req.path}`;
    const requestHash = hashBody(req.body);
    const claim = () =>
      records.claim({
        workspaceId: auth.workspaceId,
        key,
        route,
        requestHash,
        expiresAt: new Date(Date.now() + TTL_MS),
      });

    let claimed = await claim();
    if (!claimed) {
      // An expired record no longer binds the key.
      await records.release(auth.workspaceId, key, new Date());
      claimed = await claim();
    }
    if (!claimed) {
      const first = await records.find(auth.workspaceId, key);
      if (!first) throw new ConflictError('Idempotency-Key is being reused concurrently; retry');
      if (first.route !== route) {
        throw new ValidationError(
          `Idempotency-Key was first used on ${first.route}; it cannot be reused on ${route}. Use a new key.`,
        );
      }
      if (first.requestHash !== requestHash) {
        throw new ValidationError('Idempotency-Key was first used with a different request body. Use a new key.');
      }
      if (first.status === null) {
        throw new ConflictError('a request with this Idempotency-Key is still being processed; retry shortly');
      }
      for (const [k, v] of Object.entries((first.headers ?? {}) as Record<string, string>)) res.setHeader(k, v);
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(first.status);
      if (first.body === null) res.end();
      else res.json(first.body);
      return;
    }

    const observer: ReplyObserver = async (reply) => {
      res.locals.replyObserver = undefined; // one answer per request
      if (reply.status >= 500) await records.release(auth.workspaceId, key);
      else
        await records.complete(auth.workspaceId, key, {
          status: reply.status,
          body: reply.body,
          headers: reply.headers ?? {},
        });
    };
    res.locals.replyObserver = observer;
    next();
  };
