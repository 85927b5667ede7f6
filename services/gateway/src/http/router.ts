import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { OutboundUrlCheck } from '@tidemark/contracts';
import { ForbiddenError, ValidationError } from '@tidemark/errors';
import { requireScope, requireSecondFactor } from './auth.js';
import type { IdempotencyStep } from './idempotency.js';
import { sendReply } from './reply.js';
import type { AnyRoute, AuthContext } from './route.js';
import { validate } from './validate.js';

/**
 * Mounts route definitions: who may call → second factor → scope check → zod validation →
 * Idempotency-Key (a replay answers here) → handler → reply. `before` runs first on every matched
 * route (the public routes' rate limit); `outboundUrls` is the fetch guard's save-time check,
 * applied to the outbound URL fields of every body.
 */
export const mountRoutes = (
  routes: AnyRoute[],
  opts: { before?: RequestHandler[]; idempotency?: IdempotencyStep; outboundUrls?: OutboundUrlCheck } = {},
): Router => {
  const before = opts.before ?? [];
  const router = Router();
  for (const route of routes) {
    router[route.method](route.path, ...before, async (req: Request, res: Response) => {
      const auth = res.locals.auth as AuthContext;
      if (route.auth !== 'none') {
        if (route.auth === 'session' && !auth.member)
          throw new ForbiddenError('this route is for a signed-in member; an API key cannot use it');
        requireSecondFactor(auth, route);
        requireScope(auth, route.scope);
      }
      const params = route.params ? validate(route.params, req.params, 'path') : undefined;
      const query = route.query ? validate(route.query, req.query, 'query') : undefined;
      let body: unknown;
      if (route.body) {
        if (req.body === undefined && Number(req.get('content-length') ?? 0) > 0 && !req.is('application/json')) {
          throw new ValidationError('send the body as JSON with Content-Type: application/json', undefined, 400);
        }
        body = validate(route.body, req.body ?? {}, 'body', opts.outboundUrls);
      }
      if (opts.idempotency && route.auth !== 'none' && (await opts.idempotency.begin(req, res, auth, route))) return;
      const reply = await route.handler({ auth, params, query, body, req, res });
      await sendReply(req, res, reply);
    });
  }
  return router;
};
