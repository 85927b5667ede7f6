import { ForbiddenError } from '@tidemark/errors';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { FailureCounter } from '../../http/rate-limit.js';
import { defineRoute } from '../../http/route.js';
import type { Accounts } from '../accounts.js';
import { code, envelope } from '../account.schemas.js';
import { signedIn } from '../caller.js';

const CODE_ATTEMPTS = { max: 20, windowMs: 15 * 60_000 };

/** Two-factor on (a seed, then a code from it), a code shown for this session, two-factor off. */
export const secondFactorRoutes = (accounts: Accounts, redis: Redis) => {
  // Wrong codes per member (fail closed: 503 without Redis).
  const codeFailures = new FailureCounter(redis, '2fa', CODE_ATTEMPTS.max, CODE_ATTEMPTS.windowMs);

  return {
    setup: defineRoute({
      method: 'post',
      path: '/auth/2fa/setup',
      tag: 'Session',
      summary: 'Start two-factor: a seed for an authenticator app (on once a code from it is shown)',
      scope: 'read',
      secretFields: ['secret', 'otpauthUrl'],
      auth: 'session',
      responses: {
        200: {
          description: 'the seed (base32) and the otpauth URL a QR code carries; shown once',
          schema: z.object({ secret: z.string(), otpauthUrl: z.string() }),
        },
        409: envelope('two-factor is on already'),
      },
      handler: async ({ auth }) => ({ status: 200, body: await accounts.secondFactor.setup(signedIn(auth)) }),
    }),
    verify: defineRoute({
      method: 'post',
      path: '/auth/2fa/verify',
      tag: 'Session',
      summary: 'Show a second-factor code: turns two-factor on after setup, and clears mfa_required / mfa_stale',
      scope: 'read',
      auth: 'session',
      body: z.strictObject({ code }),
      responses: {
        200: {
          description: 'accepted',
          schema: z.object({ enabled: z.literal(true), verifiedAt: z.string() }),
        },
        403: envelope('the code is not right (a code works once)'),
        409: envelope('two-factor is not set up'),
        429: envelope('20 wrong codes in 15 minutes: refused, the right code too'),
        503: envelope('wrong codes cannot be counted now (Redis unreachable): refused, not let through'),
      },
      handler: async ({ auth, body }) => {
        const s = signedIn(auth);
        const out = await codeFailures.guard(
          s.user.id,
          () => accounts.secondFactor.verify(s, body.code),
          (err) => err instanceof ForbiddenError,
        );
        return { status: 200, body: { enabled: true as const, verifiedAt: out.verifiedAt.toISOString() } };
      },
    }),
    disable: defineRoute({
      method: 'post',
      path: '/auth/2fa/disable',
      tag: 'Session',
      summary: 'Turn two-factor off (a current code is asked)',
      scope: 'read',
      auth: 'session',
      body: z.strictObject({ code }),
      responses: {
        200: { description: 'off', schema: z.object({ enabled: z.literal(false) }) },
        403: envelope('the code is not right'),
        409: envelope('two-factor is off'),
      },
      handler: async ({ auth, body }) => {
        const s = signedIn(auth);
        await codeFailures.guard(
          s.user.id,
          () => accounts.secondFactor.disable(s, body.code),
          (err) => err instanceof ForbiddenError,
        );
        return { status: 200, body: { enabled: false as const } };
      },
    }),
  };
};
