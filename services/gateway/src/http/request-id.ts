import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { withRequestId } from '@tidemark/telemetry';

// A caller's id is echoed when it is sane; anything else would poison our logs and headers.
const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/** First step: echo the caller's X-Request-Id or mint one, and run the rest inside it. */
export const requestId = (req: Request, res: Response, next: NextFunction): void => {
  const given = req.get('x-request-id');
  const id = given && ACCEPTABLE.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withRequestId(id, next);
};
