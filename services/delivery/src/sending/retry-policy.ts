/** The spec's retries: six, after 1 m, 5 m, 30 m, 2 h, 6 h and 12 h (about a day), then paused. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000] as const;

export type Answer = 'delivered' | 'retryable' | 'refused';

/** What one attempt got: the receiver's status, or why there was none, and how that reads. */
export interface SendResult {
  /** HTTP status (an SMTP reply code for e-mail); null when nothing answered. */
  status: number | null;
  error: string | null;
  durationMs: number;
  answer: Answer;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'paused';

/**
 * How an HTTP receiver's answer reads: 2xx delivered; no answer (null), 5xx, 408 and 429 may
 * pass; any other 4xx will not. 1xx and 3xx (redirects are not followed: the signed body must not
 * go elsewhere) are read as may-pass, since the receiver is misconfigured rather than refusing.
 */
export const readHttpStatus = (status: number | null): Answer => {
  if (status === null) return 'retryable';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retryable';
  if (status >= 400) return 'refused';
  return 'retryable';
};

/**
 * What happens after an attempt. Automatic attempts retry on the schedule (delays multiplied by
 * `scale`, DELIVERY_RETRY_SCALE) until the six retries are spent, then pause. A redeliver is one
 * send: it is not retried, and a may-pass answer leaves the delivery paused.
 */
export const afterAttempt = (
  result: SendResult,
  delivery: { retries: number; manual: boolean },
  scale: number,
): { outcome: AttemptOutcome; delayMs: number | null } => {
  const answer = result.answer;
  if (answer === 'delivered') return { outcome: 'delivered', delayMs: null };
  if (answer === 'refused') return { outcome: 'failed', delayMs: null };
  if (delivery.manual || delivery.retries >= RETRY_DELAYS_MS.length) return { outcome: 'paused', delayMs: null };
  return { outcome: 'retry', delayMs: Math.round(RETRY_DELAYS_MS[delivery.retries]! * scale) };
};
