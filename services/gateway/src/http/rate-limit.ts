import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimitedError, UnavailableError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { AuthContext } from './route.js';

const WINDOW_MS = 60_000;

/**
 * One-minute fixed window per key, counted in Redis by one script so concurrent requests (on any
 * number of gateways) can never both take the last slot. The window is aligned on Redis's own
 * clock, so gateways with skewed clocks still agree. Answers [count, ms left in the window].
 */
const WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local start = now - (now % window)
local key = KEYS[1] .. ':' .. start
local n = redis.call('INCR', key)
if n == 1 then redis.call('PEXPIRE', key, window + 1000) end
return { n, start + window - now }
`;

/**
 * The failure counters' window opens with the first attempt counted into an empty counter and
 * lasts `window` from then, not from the clock's minute: a clock-aligned window would let
 * `2 × max` guesses through in a moment either side of its edge. Kept as a hash {n, opened} so
 * an attempt is handed back only to the window it was taken from. Answers
 * [count, ms left in the window, the window's opening].
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
if n == 1 then
  redis.call('HSET', KEYS[1], 'opened', now)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
local opened = tonumber(redis.call('HGET', KEYS[1], 'opened') or now)
return { n, math.max(0, redis.call('PTTL', KEYS[1])), opened }
`;

/**
 * Hands an attempt back to the window it was taken from (never below zero). A window whose
 * count falls to zero is closed, so the next attempt opens a fresh one.
 */
const GIVE_BACK_SCRIPT = `
if redis.call('HGET', KEYS[1], 'opened') ~= ARGV[1] then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'n', -1)
if n <= 0 then redis.call('DEL', KEYS[1]) return 0 end
return n
`;

interface RateLimitRedis extends Redis {
  rateWindow(key: string, windowMs: number): Promise<[number, number]>;
  attemptTake(key: string, windowMs: number): Promise<[number, number, number]>;
  attemptGiveBack(key: string, windowOpened: number): Promise<number>;
}

export const installRateLimitScript = (redis: Redis): void => {
  redis.defineCommand('rateWindow', { numberOfKeys: 1, lua: WINDOW_SCRIPT });
  redis.defineCommand('attemptTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  redis.defineCommand('attemptGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
};

/**
 * Per-key limit with X-RateLimit-Limit/-Remaining/-Reset (seconds until the window resets) on
 * every answer, 429 rate_limited with Retry-After past it. If Redis is unreachable the request is
 * let through and logged: an outage of the counter should not become an outage of the API.
 */
export const rateLimit =
  (redis: Redis, logger: Logger) =>
  async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const auth = res.locals.auth as AuthContext;
    let count: number;
    let msLeft: number;
    try {
      [count, msLeft] = await (redis as RateLimitRedis).rateWindow(`rl:${auth.rateKey}`, WINDOW_MS);
    } catch (err) {
      logger.warn({ err }, 'rate limiter unavailable; request let through');
      return next();
    }
    const reset = Math.max(1, Math.ceil(msLeft / 1000));
    res.setHeader('X-RateLimit-Limit', String(auth.rpm));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, auth.rpm - count)));
    res.setHeader('X-RateLimit-Reset', String(reset));
    if (count > auth.rpm) throw new RateLimitedError(reset);
    next();
  };

/**
 * Counts an attempt under `key` in a window and answers 429 past `max` (sign-up and token routes
 * by client address). Redis down: let through, as above.
 */
export const countAttempt = async (redis: Redis, key: string, max: number, windowMs: number): Promise<void> => {
  let count: number;
  let msLeft: number;
  try {
    [count, msLeft] = await (redis as RateLimitRedis).rateWindow(`attempts:${key}`, windowMs);
  } catch {
    return;
  }
  if (count > max) throw new RateLimitedError(Math.max(1, Math.ceil(msLeft / 1000)));
};

/**
 * Failed attempts at a secret (a password, a second-factor code) per subject in a window that
 * opens with the first one: past `max` failures every attempt is 429, the right secret included,
 * until the window ends.
 * Each attempt takes a slot before it runs (so concurrent guesses cannot all slip under the
 * limit) and hands it back unless it failed, so only failures stay counted: signing in
 * correctly any number of times never locks the owner out. It fails closed: without Redis the
 * failures cannot be counted, so the attempt is refused with 503 `unavailable` rather than let
 * through.
 */
export class FailureCounter {
  constructor(
    private readonly redis: Redis,
    private readonly name: string,
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Runs `attempt` if the subject has failures left; `failed` says which errors count. */
  async guard<T>(subject: string, attempt: () => Promise<T>, failed: (err: unknown) => boolean): Promise<T> {
    const key = `failures:${this.name}:${subject}`;
    const r = this.redis as RateLimitRedis;
    let taken: [number, number, number];
    try {
      taken = await r.attemptTake(key, this.windowMs);
    } catch (err) {
      throw new UnavailableError(
        'attempts cannot be counted right now (the counter is unreachable); retry shortly',
        err,
      );
    }
    const [count, msLeft, windowOpened] = taken;
    // Given back when it did not fail; a failure to give back only errs on the safe side.
    const giveBack = () => r.attemptGiveBack(key, windowOpened).catch(() => 0);
    if (count > this.max) {
      await giveBack();
      throw new RateLimitedError(Math.max(1, Math.ceil(msLeft / 1000)));
    }
    try {
      const out = await attempt();
      await giveBack();
      return out;
    } catch (err) {
      if (!failed(err)) await giveBack();
      throw err;
    }
  }
}
