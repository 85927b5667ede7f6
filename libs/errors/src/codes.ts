/**
 * Every error code of the spec, with what the edge answers, what gRPC carries and whether the
 * work that hit it may be tried again (the NATS consumers read `retryable`).
 *
 * The spec leaves the statuses of credits_exhausted, tier_limit, scopes and read_only open; the
 * choices are in docs/decisions.md.
 */
export const ERROR_CODES = {
  validation: { http: 422, grpc: 3, retryable: false },
  unauthorized: { http: 401, grpc: 16, retryable: false },
  plan_limit: { http: 402, grpc: 9, retryable: false },
  credits_exhausted: { http: 402, grpc: 8, retryable: false },
  tier_limit: { http: 402, grpc: 9, retryable: false },
  forbidden: { http: 403, grpc: 7, retryable: false },
  scopes: { http: 403, grpc: 7, retryable: false },
  read_only: { http: 403, grpc: 7, retryable: false },
  email_unverified: { http: 403, grpc: 7, retryable: false },
  mfa_required: { http: 403, grpc: 7, retryable: false },
  mfa_stale: { http: 403, grpc: 7, retryable: false },
  not_found: { http: 404, grpc: 5, retryable: false },
  conflict: { http: 409, grpc: 10, retryable: false },
  too_large: { http: 413, grpc: 11, retryable: false },
  rate_limited: { http: 429, grpc: 8, retryable: true },
  internal: { http: 500, grpc: 13, retryable: true },
  unavailable: { http: 503, grpc: 14, retryable: true },
} as const satisfies Record<string, { http: number; grpc: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
