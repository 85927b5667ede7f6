import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { RateLimitedError } from '@tidemark/errors';
import { TEST_INFRA, uniquePrefix } from '@tidemark/testkit';
import { FailureCounter, installRateLimitScript } from '../src/http/rate-limit.js';

class WrongSecret extends Error {}

/** The sign-in and second-factor counters, against a real Redis. */
describe('FailureCounter', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_INFRA.redisUrl, { keyPrefix: `${uniquePrefix()}:` });
    installRateLimitScript(redis);
  });
  afterAll(() => redis.quit());

  const failing = () => Promise.reject(new WrongSecret());
  const isWrong = (err: unknown) => err instanceof WrongSecret;
  const outcome = (counter: FailureCounter, subject: string, attempt: () => Promise<string>) =>
    counter.guard(subject, attempt, isWrong).then(
      (v) => v,
      (err: unknown) => (err instanceof RateLimitedError ? 'limited' : isWrong(err) ? 'wrong' : err),
    );

  it('opens the window at the first failure, so no clock edge lets twice the limit through', async () => {
    const counter = new FailureCounter(redis, 'edge', 3, 3_000);
    const subject = 'a@edge.test';
    // Start 2.2 s into a 3 s period of Redis's clock: a clock-aligned window would end 0.8 s
    // after the first failure and let the attempts below through. (The check after 1.2 s leaves
    // 1.8 s for a loaded machine's timers before the true window ends; at 1.5 s and 0.7 s a
    // clean-clone run's timers ran past it.)
    const [sec, micro] = await redis.time();
    const phase = (Number(sec) * 1000 + Math.floor(Number(micro) / 1000)) % 3_000;
    await new Promise((r) => setTimeout(r, (2_200 - phase + 3_000) % 3_000));
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await outcome(counter, subject, failing));
    expect(first).toEqual(['wrong', 'wrong', 'wrong']);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await outcome(counter, subject, async () => 'in')).toBe('limited');
    expect(await outcome(counter, subject, failing)).toBe('limited');
    // The window ends 3 s after the first failure, not before.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await outcome(counter, subject, async () => 'in')).toBe('in');
  });

  it('counts only failures, hands a success back, and answers Retry-After from the first failure', async () => {
    const counter = new FailureCounter(redis, 'retry', 2, 60_000);
    for (let i = 0; i < 5; i++) expect(await outcome(counter, 'b@retry.test', async () => 'in')).toBe('in');
    expect(await outcome(counter, 'b@retry.test', failing)).toBe('wrong');
    expect(await outcome(counter, 'b@retry.test', failing)).toBe('wrong');
    const limited = await counter.guard('b@retry.test', async () => 'in', isWrong).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    const retryAfter = (limited as RateLimitedError).meta.retryAfter;
    expect(retryAfter).toBeGreaterThan(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another subject has its own window.
    expect(await outcome(counter, 'c@retry.test', async () => 'in')).toBe('in');
  });

  it('lets exactly `max` of 30 concurrent failures through', async () => {
    const counter = new FailureCounter(redis, 'burst', 20, 60_000);
    const all = await Promise.all(Array.from({ length: 30 }, () => outcome(counter, 'd@burst.test', failing)));
    expect(all.filter((o) => o === 'wrong')).toHaveLength(20);
    expect(all.filter((o) => o === 'limited')).toHaveLength(10);
  });
});
