import type { Request, Response } from 'express';
import type { Reply } from './route.js';

/** Hook the idempotency step installs: sees every reply sent after it, errors included. */
export type ReplyObserver = (reply: Reply) => Promise<void>;

/** Every answer of /v1 goes out here, so the idempotency step can keep what it says. */
export const sendReply = async (req: Request, res: Response, reply: Reply): Promise<void> => {
  const observer = res.locals.replyObserver as ReplyObserver | undefined;
  if (observer) await observer(reply);
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  res.status(reply.status);
  if (reply.raw) res.end(reply.raw);
  else if (reply.body === undefined || reply.status === 204 || req.method === 'HEAD') res.end();
  else res.json(reply.body);
};
