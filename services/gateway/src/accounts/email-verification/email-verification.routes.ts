import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { Accounts } from '../accounts.js';
import { envelope, token } from '../account.schemas.js';
import { signedIn } from '../caller.js';

/** Confirming an address: with the mailed code (signed out), or asking for a new code (signed in). */
export const emailVerificationRoutes = (accounts: Accounts) => ({
  verify: defineRoute({
    method: 'post',
    path: '/auth/verify',
    tag: 'Session',
    summary: 'Confirm an e-mail address with the code mailed to it',
    scope: 'read',
    auth: 'none',
    body: z.strictObject({ token }),
    responses: {
      200: { description: 'confirmed', schema: z.object({ verified: z.literal(true) }) },
      404: envelope('unknown, used or expired'),
    },
    handler: async ({ body }) => {
      await accounts.emailVerification.verify(body.token);
      return { status: 200, body: { verified: true as const } };
    },
  }),
  request: defineRoute({
    method: 'post',
    path: '/auth/verify/request',
    tag: 'Session',
    summary: 'Mail a new confirmation code for your address',
    scope: 'read',
    auth: 'session',
    responses: {
      200: {
        description: 'sent (false when no mail host is configured) or already confirmed',
        schema: z.object({ sent: z.boolean(), verified: z.boolean() }),
      },
    },
    handler: async ({ auth }) => ({ status: 200, body: await accounts.emailVerification.request(signedIn(auth)) }),
  }),
});
