import type { NextFunction, Request, Response } from 'express';
import { ApiError, asApiError, NotFoundError, TooLargeError, toEnvelope, ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import { sendReply } from './reply.js';

/** Unknown routes answer 404 in the envelope. */
export const unknownRoute = (req: Request, _res: Response, next: NextFunction): void =>
  next(new NotFoundError(`route ${req.method} ${req.baseUrl}${req.path}`));

/** express.json's own failures, turned into the spec's codes. */
const fromBodyParser = (err: unknown): ApiError | undefined => {
  const type = (err as { type?: string })?.type;
  if (type === 'entity.too.large') return new TooLargeError('request body is larger than the limit');
  if (type === 'entity.parse.failed') return new ValidationError('request body is not valid JSON', undefined, 400);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return new ValidationError('request body encoding is not supported', undefined, 400);
  return undefined;
};

/** The router's own 4xx (a path segment that is not valid percent-encoding throws URIError 400). */
const fromRouter = (err: unknown): ApiError | undefined =>
  err instanceof URIError && (err as { status?: number }).status === 400
    ? new ValidationError('the path is not valid percent-encoding', undefined, 400)
    : undefined;

/** Last step: every error leaves as `{error, code, request_id}` with the matching status. */
export const errorHandler =
  (logger: Logger) =>
  (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const apiError = fromBodyParser(err) ?? fromRouter(err) ?? asApiError(err);
    const requestId = String(res.locals.requestId ?? '');
    if (apiError.status >= 500)
      logger.error({ err, requestId, method: req.method, path: req.originalUrl }, 'request failed');
    const headers: Record<string, string> = {};
    if (apiError.meta.retryAfter !== undefined) headers['Retry-After'] = String(apiError.meta.retryAfter);
    if (res.headersSent) return void res.end();
    void sendReply(req, res, { status: apiError.status, body: toEnvelope(apiError, requestId), headers }).catch((e) => {
      logger.error({ err: e, requestId }, 'could not send error reply');
      if (!res.headersSent) res.status(500).json(toEnvelope(asApiError(e), requestId));
    });
  };
