/**
 * What a call to the API can fail with. `code` is the envelope's (`not_found`, `rate_limited`,
 * `read_only`, …) or, for failures that never reached an answer, `network` or `timeout`.
 */
export class TidemarkError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly meta: {
      requestId?: string | null;
      /** Seconds the server asked to wait (429 and 503 carry Retry-After). */
      retryAfter?: number;
      details?: unknown;
      /** How many times the call was sent. */
      attempts?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: meta.cause });
    this.name = new.target.name;
  }
  get requestId(): string | null {
    return this.meta.requestId ?? null;
  }
}

/** The API answered with an error envelope `{error, code, request_id}`. */
export class TidemarkApiError extends TidemarkError {}

/** No answer: the connection failed or was cut. */
export class TidemarkNetworkError extends TidemarkError {
  constructor(message: string, meta: TidemarkError['meta'] = {}) {
    super(message, 'network', 0, meta);
  }
}

/** No answer within the request timeout (150 s unless configured). */
export class TidemarkTimeoutError extends TidemarkError {
  constructor(timeoutMs: number, meta: TidemarkError['meta'] = {}) {
    super(`no answer within ${Math.round(timeoutMs / 1000)} s`, 'timeout', 0, meta);
  }
}

/** A webhook message whose signature does not verify (or is too old, or has none). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
