import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface ErrorMeta {
  /** Extra machine-readable facts (the failing fields of a validation error, say). */
  details?: object;
  /** Seconds the caller should wait; becomes Retry-After at the edge. */
  retryAfter?: number;
  /** Overrides the code's default status where the spec allows two (validation: 400 or 422). */
  status?: number;
  cause?: unknown;
}

/** The one error type that crosses every boundary: HTTP envelope, gRPC status, NATS header. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly meta: ErrorMeta = {},
  ) {
    super(message, { cause: meta.cause });
    this.name = new.target.name;
  }

  get status(): number {
    return this.meta.status ?? ERROR_CODES[this.code].http;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }

  /** The wire form used on gRPC metadata and NATS headers. */
  toWire(): WireError {
    return {
      code: this.code,
      message: this.message,
      ...(this.meta.details ? { details: this.meta.details } : {}),
      ...(this.meta.retryAfter !== undefined ? { retryAfter: this.meta.retryAfter } : {}),
    };
  }
}

export interface WireError {
  code: ErrorCode;
  message: string;
  details?: object;
  retryAfter?: number;
}

export class ValidationError extends ApiError {
  constructor(message: string, details?: object, status: 400 | 422 = 422) {
    super('validation', message, { details, status });
  }
}
export class UnauthorizedError extends ApiError {
  constructor(message = 'missing or invalid API key') {
    super('unauthorized', message);
  }
}
export class ForbiddenError extends ApiError {
  constructor(message: string) {
    super('forbidden', message);
  }
}
export class NotFoundError extends ApiError {
  constructor(what: string) {
    super('not_found', `${what} not found`);
  }
}
export class ConflictError extends ApiError {
  constructor(message: string) {
    super('conflict', message);
  }
}
export class TooLargeError extends ApiError {
  constructor(message: string) {
    super('too_large', message);
  }
}
export class RateLimitedError extends ApiError {
  constructor(retryAfter: number) {
    super('rate_limited', `rate limit exceeded; retry in ${retryAfter}s`, { retryAfter });
  }
}
export class UnavailableError extends ApiError {
  constructor(message: string, cause?: unknown) {
    super('unavailable', message, { cause });
  }
}
export class InternalError extends ApiError {
  constructor(cause?: unknown) {
    super('internal', 'internal error', { cause });
  }
}
