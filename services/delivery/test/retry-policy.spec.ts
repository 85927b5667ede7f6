import { describe, expect, it } from '@jest/globals';
import { afterAttempt, readHttpStatus, RETRY_DELAYS_MS, type SendResult } from '../src/sending/retry-policy.js';

const answered = (status: number | null): SendResult => ({
  status,
  error: null,
  durationMs: 1,
  answer: readHttpStatus(status),
});

describe('after an attempt', () => {
  it('reads 2xx as delivered, no answer, 5xx, 408 and 429 as may-pass, other 4xx as refused', () => {
    expect([200, 204, 299].map(readHttpStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([null, 500, 503, 408, 429].map(readHttpStatus)).toEqual(Array(5).fill('retryable'));
    expect([400, 401, 404, 410, 422].map(readHttpStatus)).toEqual(Array(5).fill('refused'));
  });

  it('retries six times on the spec schedule, scaled, then pauses', () => {
    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000]);
    const steps = [0, 1, 2, 3, 4, 5, 6].map((retries) => afterAttempt(answered(500), { retries, manual: false }, 0.5));
    expect(steps).toEqual([
      { outcome: 'retry', delayMs: 30_000 },
      { outcome: 'retry', delayMs: 150_000 },
      { outcome: 'retry', delayMs: 900_000 },
      { outcome: 'retry', delayMs: 3_600_000 },
      { outcome: 'retry', delayMs: 10_800_000 },
      { outcome: 'retry', delayMs: 21_600_000 },
      { outcome: 'paused', delayMs: null },
    ]);
  });

  it('fails a refused answer at once, and a redeliver is one send', () => {
    expect(afterAttempt(answered(400), { retries: 0, manual: false }, 1)).toEqual({ outcome: 'failed', delayMs: null });
    expect(afterAttempt(answered(503), { retries: 0, manual: true }, 1)).toEqual({ outcome: 'paused', delayMs: null });
    expect(afterAttempt(answered(200), { retries: 6, manual: true }, 1)).toEqual({
      outcome: 'delivered',
      delayMs: null,
    });
  });
});
