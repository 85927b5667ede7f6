import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimitedError } from '@tidemark/errors';
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

interface RateLimitRedis extends Redis {
  rateWindow(key: string, windowMs: number): Promise<[number, number]>;
}

export const installRateLimitScript = (redis: Redis): void => {
  redis.defineCommand('rateWindow', { numberOfKeys: 1, lua: WINDOW_SCRIPT });
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
 * Counts an attempt under `key` in a window and answers 429 past `max` (sign-in failures by
 * address, sign-up and token routes by client address). Redis down: let through, as above.
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
