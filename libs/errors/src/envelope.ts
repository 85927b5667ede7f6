import { ApiError, InternalError, UnavailableError } from './api-error.js';
import { isErrorCode } from './codes.js';
import { isOutage } from './outage.js';
import type { WireError } from './api-error.js';

/** The spec's error body. `details` is ours: the failing fields of a validation error. */
export interface ErrorEnvelope {
  error: string;
  code: string;
  request_id: string;
  details?: object;
}

export const toEnvelope = (err: ApiError, requestId: string): ErrorEnvelope => ({
  // A 500 never leaks its cause to the caller; the log has it under the same request id.
  error: err.code === 'internal' ? 'internal error' : err.message,
  code: err.code,
  request_id: requestId,
  ...(err.meta.details ? { details: err.meta.details } : {}),
});

/**
 * Anything thrown becomes an ApiError: a dependency out of reach (`isOutage`) `unavailable`,
 * other unknown failures `internal`, each keeping the cause.
 */
export const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError
    ? err
    : isOutage(err)
      ? new UnavailableError('a service this request needs is out of reach; try again shortly', err)
      : new InternalError(err);

/** Rebuilds the error a peer serialized with `toWire()`; garbage becomes `internal`. */
export const fromWire = (wire: unknown): ApiError => {
  if (wire && typeof wire === 'object' && 'code' in wire && isErrorCode(wire.code)) {
    const w = wire as WireError;
    return new ApiError(w.code, String(w.message ?? w.code), {
      ...(w.details ? { details: w.details } : {}),
      ...(typeof w.retryAfter === 'number' ? { retryAfter: w.retryAfter } : {}),
    });
  }
  return new InternalError(wire);
};
