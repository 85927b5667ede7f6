import type { Request, Response } from 'express';
import { ConflictError, ValidationError } from '@tidemark/errors';
import type { SecretBox } from '@tidemark/secret-box';
import type { IdempotencyRepository, RecordRef } from '../repositories/idempotency.repository.js';
import type { ReplyObserver } from './reply.js';
import type { AnyRoute, AuthContext } from './route.js';

const TTL_MS = 24 * 3600 * 1000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
/** What a replayed secret says when it can no longer be opened (SECRETS_KEY changed since). */
const SHOWN_ONCE = 'shown once, in the first answer';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Idempotency-Key on POST, run by the router after the caller's authentication, second factor,
 * scope and the request's validation, so a replay is never an answer the caller could not get
 * now, and a request refused before its handler keeps nothing.
 *
 * The record belongs to the caller who sent it (the API key, or the member), in its workspace:
 * another caller's use of the same key is a request of its own. The key is bound to its route and
 * body (reuse elsewhere: 422). Only answers that did something (2xx) are kept, 24 hours, and
 * replayed with `Idempotent-Replayed: true`; a 4xx or 5xx is dropped, so a corrected retry runs.
 * Secret fields of an answer (the route's `secretFields`) are kept sealed, apart from the body,
 * and opened again only for that same caller.
 */
export class IdempotencyStep {
  constructor(
    private readonly records: IdempotencyRepository,
    private readonly box: SecretBox,
  ) {}

  /** Answers true when it has answered (a replay); otherwise the handler runs and its reply is watched. */
  async begin(req: Request, res: Response, auth: AuthContext, route: AnyRoute): Promise<boolean> {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return false;
    if (!KEY_FORMAT.test(key)) {
      throw new ValidationError('Idempotency-Key must be 1 to 255 printable ASCII characters', undefined, 400);
    }
    const ref: RecordRef = { workspaceId: auth.workspaceId, caller: auth.rateKey, key };
    const routeName = `POST ${req.baseUrl}${req.path}`;
    // Keyed: a body may hold a password or a header value, and the digest is kept 24 hours.
    const requestHash = this.box.digest(JSON.stringify(req.body ?? null));
    const claim = () =>
      this.records.claim(ref, { route: routeName, requestHash, expiresAt: new Date(Date.now() + TTL_MS) });

    let claimed = await claim();
    if (!claimed) {
      // An expired record no longer binds the key.
      await this.records.release(ref, new Date());
      claimed = await claim();
    }
    if (!claimed) {
      const first = await this.records.find(ref);
      if (!first) throw new ConflictError('Idempotency-Key is being reused concurrently; retry');
      if (first.route !== routeName) {
        throw new ValidationError(
          `Idempotency-Key was first used on ${first.route}; it cannot be reused on ${routeName}. Use a new key.`,
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
      else res.json(this.withSecrets(first.body, first.secrets, route.secretFields ?? []));
      return true;
    }

    const observer: ReplyObserver = async (reply) => {
      res.locals.replyObserver = undefined; // one answer per request
      res.locals.forgetIdempotency = undefined;
      if (reply.status < 200 || reply.status >= 300 || reply.raw) return this.records.release(ref);
      const { body, secrets } = this.sealSecrets(reply.body, route.secretFields ?? []);
      await this.records.complete(ref, { status: reply.status, body, headers: reply.headers ?? {}, secrets });
    };
    res.locals.replyObserver = observer;
    res.locals.forgetIdempotency = async () => {
      res.locals.replyObserver = undefined;
      res.locals.forgetIdempotency = undefined;
      await this.records.release(ref);
    };
    return false;
  }

  /** The body without its secret fields, and those fields as one sealed JSON object (or null). */
  private sealSecrets(body: unknown, fields: string[]): { body: unknown; secrets: string | null } {
    if (!isObject(body) || !fields.some((f) => f in body)) return { body, secrets: null };
    const kept: Record<string, unknown> = { ...body };
    const secret: Record<string, unknown> = {};
    for (const f of fields) {
      if (!(f in kept)) continue;
      secret[f] = kept[f];
      delete kept[f];
    }
    return { body: kept, secrets: this.box.seal(JSON.stringify(secret)) };
  }

  /** The kept body with its secrets opened again (said to have been shown once if they cannot be). */
  private withSecrets(body: unknown, secrets: string | null, fields: string[]): unknown {
    if (!secrets || !isObject(body)) return body;
    try {
      return { ...body, ...(JSON.parse(this.box.open(secrets)) as Record<string, unknown>) };
    } catch {
      return { ...body, ...Object.fromEntries(fields.map((f) => [f, SHOWN_ONCE])) };
    }
  }
}

/**
 * For a route whose answer cannot be replayed (a streamed file): the key keeps nothing and a
 * repeat runs again.
 */
export const forgetIdempotency = async (res: Response): Promise<void> => {
  const forget = res.locals.forgetIdempotency as (() => Promise<void>) | undefined;
  if (forget) await forget();
};
