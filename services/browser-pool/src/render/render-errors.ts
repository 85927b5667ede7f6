import { ApiError, type ErrorCode } from '@tidemark/errors';

/**
 * Why a render failed, carried in `details.reason` of the ApiError so the scrape service can
 * map it without parsing messages (README, "Errors"):
 *
 * | reason          | code        | scrape errorCode |
 * |-----------------|-------------|------------------|
 * | blocked_address | forbidden   | NETWORK          |
 * | network         | not_found   | NETWORK          |
 * | timeout         | validation  | TIMEOUT          |
 * | crashed         | unavailable | retry, then NETWORK |
 * | busy            | unavailable | retry later      |
 * | exit_failed     | unavailable | retry (another exit) |
 * | too_large       | validation  | NETWORK          |
 *
 * A page that failed is not the pool failing: only `crashed`, `busy` and `exit_failed` use a
 * retryable code; a timed-out or refused page would time out or be refused again.
 */
export type RenderFailure =
  'blocked_address' | 'network' | 'timeout' | 'crashed' | 'busy' | 'exit_failed' | 'too_large';

const CODES: Record<RenderFailure, ErrorCode> = {
  blocked_address: 'forbidden',
  network: 'not_found',
  timeout: 'validation',
  crashed: 'unavailable',
  busy: 'unavailable',
  exit_failed: 'unavailable',
  too_large: 'validation',
};

const PREFIX: Record<RenderFailure, string> = {
  blocked_address: 'blocked address',
  network: 'network error',
  timeout: 'page timeout',
  crashed: 'page crashed',
  busy: 'browser pool busy',
  exit_failed: 'exit failed',
  too_large: 'page too large',
};

export class RenderError extends ApiError {
  constructor(
    readonly reason: RenderFailure,
    detail: string,
    extra: Record<string, unknown> = {},
    cause?: unknown,
  ) {
    super(CODES[reason], `${PREFIX[reason]}: ${detail}`, { details: { reason, ...extra }, cause });
  }
}
