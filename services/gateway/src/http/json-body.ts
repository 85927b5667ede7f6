import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ValidationError } from '@tidemark/errors';

/** Deeper than any body of the API; JSON.parse takes any depth, but every recursive reader after it (zod, JSON.stringify, the idempotency hash) would overflow the stack on a crafted one. */
export const MAX_BODY_DEPTH = 64;

/** How deep a parsed value nests, walked with an explicit stack (a recursive walk is the very thing to avoid); stops counting past `limit`. */
export const depthOf = (value: unknown, limit = MAX_BODY_DEPTH): number => {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > limit) return max;
    if (v && typeof v === 'object') for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
};

const refuseDeep = (req: Request, _res: Response, next: NextFunction): void => {
  if (depthOf(req.body) > MAX_BODY_DEPTH) {
    throw new ValidationError(`request body nests deeper than ${MAX_BODY_DEPTH} levels`, undefined, 400);
  }
  next();
};

/** express.json (413 past `limit`, 400 when malformed) and the depth bound, as one step. */
export const jsonBody = (limit: string): RequestHandler[] => [
  express.json({ limit, type: ['application/json', 'application/*+json'] }),
  refuseDeep,
];
