import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { Accounts } from '../accounts.js';
import { email, envelope, password, token } from '../account.schemas.js';
import { signedIn } from '../caller.js';
import { PASSWORD_MAX } from '../password-hash.js';

/** A forgotten password (a code by mail, then a new password) and changing a known one. */
export const passwordRoutes = (accounts: Accounts) => ({
  forgot: defineRoute({
    method: 'post',
    path: '/auth/forgot',
    tag: 'Session',
    summary: 'Mail a password-reset code (the answer is the same whether the address has an account)',
    scope: 'read',
    auth: 'none',
    body: z.strictObject({ email }),
    responses: { 202: { description: 'accepted', schema: z.object({ accepted: z.literal(true) }) } },
    handler: async ({ body }) => {
      await accounts.passwords.forgot(body.email);
      return { status: 202, body: { accepted: true as const } };
    },
  }),
  reset: defineRoute({
    method: 'post',
    path: '/auth/reset',
    tag: 'Session',
    summary: 'Set a new password with a reset code; every session of the account ends',
    scope: 'read',
    auth: 'none',
    body: z.strictObject({ token, password }),
    responses: {
      200: { description: 'password set', schema: z.object({ reset: z.literal(true) }) },
      404: envelope('unknown, used or expired'),
    },
    handler: async ({ body }) => {
      await accounts.passwords.reset(body.token, body.password);
      return { status: 200, body: { reset: true as const } };
    },
  }),
  change: defineRoute({
    method: 'post',
    path: '/auth/password',
    tag: 'Session',
    summary: 'Change your password (the current one is asked); your other sessions end',
    scope: 'read',
    auth: 'session',
    recentSecondFactor: true,
    body: z.strictObject({ current: z.string().min(1).max(PASSWORD_MAX), password }),
    responses: {
      200: {
        description: 'changed',
        schema: z.object({ changed: z.literal(true), endedSessions: z.number().int() }),
      },
      403: envelope('the current password is not right'),
    },
    handler: async ({ auth, body }) => ({
      status: 200,
      body: {
        changed: true as const,
        endedSessions: await accounts.passwords.change(signedIn(auth), body.current, body.password),
      },
    }),
  }),
});
