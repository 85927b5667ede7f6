import type { Invite } from '@tidemark/db';
import { z } from 'zod';
import { requireUnlimitedKey } from '../../http/auth.js';
import { defineRoute } from '../../http/route.js';
import type { Accounts } from '../accounts.js';
import { email, envelope, roleEnum, token } from '../account.schemas.js';
import { actorRole, clientMeta } from '../caller.js';
import type { Role } from '../members/roles.js';
import { PASSWORD_MAX } from '../password-hash.js';
import { sessionToken, setSessionCookie, type CookieOptions } from '../sessions/session-cookie.js';
import { presentSession, sessionViewSchema } from '../sessions/session-view.js';

export const inviteSchema = z
  .object({ id: z.string(), email: z.string(), role: roleEnum, createdAt: z.string(), expiresAt: z.string() })
  .meta({ id: 'Invite' });

export const presentInvite = (i: Omit<Invite, 'hash'>): z.infer<typeof inviteSchema> => ({
  id: i.id,
  email: i.email,
  role: i.role as Role,
  createdAt: i.createdAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
});

/** Seeing and accepting an invitation (signed out or in); inviting and withdrawing (admin). */
export const inviteRoutes = (accounts: Accounts, cookie: CookieOptions) => ({
  info: defineRoute({
    method: 'get',
    path: '/auth/invites/:token',
    tag: 'Session',
    summary: 'What an invitation is for (workspace, address, role), before accepting it',
    scope: 'read',
    auth: 'none',
    params: z.object({ token }),
    responses: {
      200: {
        description: 'the invitation',
        schema: z.object({
          workspace: z.object({ name: z.string() }),
          email: z.string(),
          role: roleEnum,
          expiresAt: z.string(),
          accountExists: z.boolean().describe('accept with that account’s password; otherwise one is created'),
        }),
      },
      404: envelope('unknown, used or expired'),
    },
    handler: async ({ params }) => {
      const { invite, accountExists } = await accounts.invites.info(params.token);
      return {
        status: 200,
        body: {
          workspace: { name: invite.workspace.name },
          email: invite.email,
          role: invite.role as Role,
          expiresAt: invite.expiresAt.toISOString(),
          accountExists,
        },
      };
    },
  }),
  accept: defineRoute({
    method: 'post',
    path: '/auth/invites/accept',
    tag: 'Session',
    summary: 'Accept an invitation: signed in as the invited address, or signed out with a password',
    description:
      'Signed out, an existing account gives its password and a new one is created with the password (and name) given. Answers a session in the invited workspace and sets the cookie.',
    scope: 'read',
    auth: 'none',
    body: z.strictObject({
      token,
      password: z.string().min(1).max(PASSWORD_MAX).optional(),
      name: z.string().trim().min(1).max(100).optional(),
    }),
    responses: {
      200: { description: 'joined', schema: sessionViewSchema },
      403: envelope('signed in as another address'),
      404: envelope('unknown, used or expired'),
    },
    handler: async ({ body, req, res }) => {
      // Signed in (a valid cookie and no key), the invitation is accepted for that session.
      const presented = req.get('authorization') ? undefined : sessionToken(req);
      const current = presented ? await accounts.sessions.authenticate(presented) : null;
      const opened = await accounts.invites.accept(body.token, body, current, clientMeta(req));
      if (opened.token) setSessionCookie(req, res, opened.token, cookie);
      return { status: 200, body: await presentSession(accounts.sessions, opened.signedIn) };
    },
  }),
  create: defineRoute({
    method: 'post',
    path: '/auth/invites',
    tag: 'Session',
    summary: 'Invite an address with a role (admin; only an owner invites owners)',
    recentSecondFactor: true,
    description:
      'With a mail host the code is mailed to the address and never answered here (`sent` says whether the mail went; if not, withdraw and invite again). Without one it is answered here once for you to hand over. It works once, for seven days; only a mailed code confirms the address when accepted.',
    scope: 'admin',
    secretFields: ['token'],
    body: z.strictObject({ email, role: roleEnum.default('member') }),
    responses: {
      201: {
        description: 'invited',
        schema: inviteSchema.extend({
          token: z
            .string()
            .optional()
            .describe('the invitation code, only when no mail host is configured: shown in this answer only'),
          sent: z.boolean().describe('whether it was mailed'),
        }),
      },
      409: envelope('already a member'),
    },
    handler: async ({ auth, body }) => {
      requireUnlimitedKey(auth, 'invite members');
      const {
        invite,
        token: code,
        sent,
      } = await accounts.invites.invite(
        {
          userId: auth.member?.userId ?? null,
          role: actorRole(auth),
          workspaceId: auth.workspaceId,
          workspaceName: auth.workspace.name,
        },
        body,
      );
      return { status: 201, body: { ...presentInvite(invite), ...(code ? { token: code } : {}), sent } };
    },
  }),
  withdraw: defineRoute({
    method: 'delete',
    path: '/auth/invites/:id',
    tag: 'Session',
    summary: 'Withdraw a pending invitation (admin)',
    scope: 'admin',
    params: z.object({ id: z.string().min(1).max(100) }),
    responses: { 200: { description: 'withdrawn', schema: z.object({ deleted: z.literal(true) }) } },
    handler: async ({ auth, params }) => {
      await accounts.invites.withdraw(auth.workspaceId, params.id);
      return { status: 200, body: { deleted: true as const } };
    },
  }),
});
