import { Router, type Request, type Response } from 'express';
import { ValidationError } from '@tidemark/errors';
import { requireScope } from './auth.js';
import { sendReply } from './reply.js';
import type { AnyRoute, AuthContext } from './route.js';
import { validate } from './validate.js';

/** Mounts route definitions: scope check → zod validation → handler → reply. */
export const mountRoutes = (routes: AnyRoute[]): Router => {
  const router = Router();
  for (const route of routes) {
    router[route.method](route.path, async (req: Request, res: Response) => {
      const auth = res.locals.auth as AuthContext;
      requireScope(auth, route.scope);
      const params = route.params ? validate(route.params, req.params, 'path') : undefined;
      const query = route.query ? validate(route.query, req.query, 'query') : undefined;
      let body: unknown;
      if (route.body) {
        if (req.body === undefined && Number(req.get('content-length') ?? 0) > 0 && !req.is('application/json')) {
          throw new ValidationError('send the body as JSON with Content-Type: application/json', undefined, 400);
        }
        body = validate(route.body, req.body ?? {}, 'body');
      }
      const reply = await route.handler({ auth, params, query, body, req, res });
      await sendReply(req, res, reply);
    });
  }
  return router;
};
