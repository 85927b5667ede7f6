import type { Request } from 'express';
import { z } from 'zod';
import { ForbiddenError, UnauthorizedError } from '@tidemark/errors';
import { errorEnvelopeSchema } from '../http/common.schemas.js';
import { requireUnlimitedKey } from '../http/auth.js';
import { FailureCounter } from '../http/rate-limit.js';
import { defineRoute, type AuthContext } from '../http/route.js';
import { clearSessionCookie, sessionToken, setSessionCookie, type CookieOptions } from '../http/session-cookie.js';
import type { Redis } from 'ioredis';
import type { Role, SessionRow, SignedIn } from '../repositories/account.repository.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../services/password.js';
import type { AccountService, ClientMeta } from '../services/account.service.js';
import type { WorkspaceService } from '../services/workspace.service.js';

const roleEnum = z.enum(['owner', 'admin', 'member', 'viewer']);
const email = z.string().trim().max(254).email();
const password = z
  .string()
  .min(PASSWORD_MIN)
  .max(PASSWORD_MAX)
  .describe(`${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
const token = z.string().min(20).max(100);
const code = z
  .string()
  .regex(/^\d{6}$/, 'six digits')
  .describe('the six digits the authenticator app shows');
const LOGIN_ATTEMPTS = { max: 20, windowMs: 15 * 60_000 };

const sessionViewSchema = z
  .object({
    user: z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      emailVerified: z.boolean(),
      createdAt: z.string(),
    }),
    workspace: z.object({ id: z.string(), name: z.string(), plan: z.string() }),
    role: roleEnum,
    workspaces: z.array(z.object({ id: z.string(), name: z.string(), role: roleEnum })).describe('every membership'),
    session: z.object({ id: z.string(), createdAt: z.string(), expiresAt: z.string() }),
    mfa: z
      .object({
        enabled: z.boolean().describe('the member has two-factor on'),
        verifiedAt: z.string().nullable().describe('when this session last showed a code'),
        required: z.boolean().describe('the workspace requires two-factor'),
      })
      .describe('with enabled and no verifiedAt (or required and not enabled) only /auth routes answer'),
  })
  .meta({ id: 'Session' });

const memberSchema = z
  .object({
    id: z.string().describe('the user id'),
    email: z.string(),
    name: z.string().nullable(),
    role: roleEnum,
    emailVerified: z.boolean(),
    joinedAt: z.string(),
  })
  .meta({ id: 'Member' });

const inviteSchema = z
  .object({ id: z.string(), email: z.string(), role: roleEnum, createdAt: z.string(), expiresAt: z.string() })
  .meta({ id: 'Invite' });

const sessionRowSchema = z.object({
  id: z.string(),
  current: z.boolean(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
});

const envelope = (description: string) => ({ description, schema: errorEnvelopeSchema });

const metaOf = (req: Request): ClientMeta => ({ userAgent: req.get('user-agent') ?? null, ip: req.ip ?? null });

export const authRoutes = (
  accounts: AccountService,
  workspaces: WorkspaceService,
  redis: Redis,
  cookie: CookieOptions,
) => {
  const presentSession = async (s: SignedIn): Promise<z.infer<typeof sessionViewSchema>> => ({
    user: {
      id: s.user.id,
      email: s.user.email,
      name: s.user.name,
      emailVerified: s.user.emailVerifiedAt !== null,
      createdAt: s.user.createdAt.toISOString(),
    },
    workspace: { id: s.workspace.id, name: s.workspace.name, plan: s.workspace.plan },
    role: s.role,
    workspaces: await accounts.memberships(s.user.id),
    session: {
      id: s.session.id,
      createdAt: s.session.createdAt.toISOString(),
      expiresAt: s.session.expiresAt.toISOString(),
    },
    mfa: {
      enabled: s.user.mfaEnabledAt !== null,
      verifiedAt: s.session.mfaAt?.toISOString() ?? null,
      required: s.workspace.requireMfa,
    },
  });
  const presentSessionRow = (r: SessionRow, currentId: string) => ({
    id: r.id,
    current: r.id === currentId,
    userAgent: r.userAgent,
    ip: r.ip,
    createdAt: r.createdAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
  });
  const signedIn = (auth: AuthContext): SignedIn => auth.member!.signedIn;
  // Wrong passwords per address, wrong codes per member (fail closed: 503 without Redis).
  const loginFailures = new FailureCounter(redis, 'login', LOGIN_ATTEMPTS.max, LOGIN_ATTEMPTS.windowMs);
  const codeFailures = new FailureCounter(redis, '2fa', LOGIN_ATTEMPTS.max, LOGIN_ATTEMPTS.windowMs);
  /** The role a caller acts with on members: a member's own, or its key scope's (never owner). */
  const actorRole = (auth: AuthContext): Role =>
    auth.member?.role ?? ({ admin: 'admin', write: 'member', read: 'viewer' } as const)[auth.scope];

  return [
    // --- signed out ----------------------------------------------------------------------------
    defineRoute({
      method: 'post',
      path: '/auth/signup',
      tag: 'Session',
      summary: 'Create an account and its own workspace (you are its owner)',
      description:
        'Without a mail host: the address is taken as confirmed, the answer is 201 with the session (cookie set), and an address that has an account is 409. With a mail host: always 202 `{accepted: true}` and no session, whether or not the address has an account (the answer does not tell): a new account gets a confirmation code by mail (POST /auth/verify, then sign in); the owner of an existing one is told by mail.',
      scope: 'read',
      auth: 'none',
      body: z.strictObject({
        email,
        password,
        name: z.string().trim().min(1).max(100).optional(),
        workspace: z.string().trim().min(1).max(100).optional().describe('name of the new workspace'),
      }),
      responses: {
        201: { description: 'signed in (no mail host)', schema: sessionViewSchema },
        202: {
          description:
            'with a mail host: look for our mail (the same answer whether or not the address has an account)',
          schema: z.object({ accepted: z.literal(true) }),
        },
        409: envelope('an account with this e-mail exists (only without a mail host)'),
      },
      handler: async ({ body, req, res }) => {
        const out = await accounts.signup(body, metaOf(req));
        if (!('opened' in out)) return { status: 202, body: { accepted: true as const } };
        setSessionCookie(req, res, out.opened.token, cookie);
        return { status: 201, body: await presentSession(out.opened.signedIn) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/login',
      tag: 'Session',
      summary: 'Sign in with e-mail and password; sets the session cookie',
      scope: 'read',
      auth: 'none',
      body: z.strictObject({
        email,
        password: z.string().min(1).max(PASSWORD_MAX),
        workspace_id: z.string().min(1).max(100).optional().describe('open the session in this workspace'),
        code: code
          .optional()
          .describe('with two-factor on: completes the sign-in (else show it with /auth/2fa/verify)'),
      }),
      responses: {
        200: { description: 'signed in', schema: sessionViewSchema },
        401: envelope(
          'wrong e-mail or password (with a mail host, also: the address is not confirmed yet; one answer for both)',
        ),
        429: envelope('20 failed sign-ins for this address in 15 minutes: refused, the right password too'),
        503: envelope('failed sign-ins cannot be counted now (Redis unreachable): refused, not let through'),
      },
      handler: async ({ body, req, res }) => {
        const opened = await loginFailures.guard(
          body.email.trim().toLowerCase(),
          () =>
            accounts.login(
              { email: body.email, password: body.password, workspaceId: body.workspace_id, code: body.code },
              metaOf(req),
            ),
          (err) => err instanceof UnauthorizedError,
        );
        setSessionCookie(req, res, opened.token, cookie);
        return { status: 200, body: await presentSession(opened.signedIn) };
      },
    }),
    defineRoute({
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
        await accounts.verify(body.token);
        return { status: 200, body: { verified: true as const } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/forgot',
      tag: 'Session',
      summary: 'Mail a password-reset code (the answer is the same whether the address has an account)',
      scope: 'read',
      auth: 'none',
      body: z.strictObject({ email }),
      responses: { 202: { description: 'accepted', schema: z.object({ accepted: z.literal(true) }) } },
      handler: async ({ body }) => {
        await accounts.forgot(body.email);
        return { status: 202, body: { accepted: true as const } };
      },
    }),
    defineRoute({
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
        await accounts.reset(body.token, body.password);
        return { status: 200, body: { reset: true as const } };
      },
    }),
    defineRoute({
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
        const { invite, accountExists } = await accounts.inviteInfo(params.token);
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
    defineRoute({
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
        const current = presented ? await accounts.authenticate(presented) : null;
        const opened = await accounts.acceptInvite(body.token, body, current, metaOf(req));
        if (opened.token) setSessionCookie(req, res, opened.token, cookie);
        return { status: 200, body: await presentSession(opened.signedIn) };
      },
    }),

    // --- signed in -----------------------------------------------------------------------------
    defineRoute({
      method: 'get',
      path: '/auth/session',
      tag: 'Session',
      summary: 'Who is signed in, in which workspace, with which role',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'the session', schema: sessionViewSchema } },
      handler: async ({ auth }) => ({ status: 200, body: await presentSession(signedIn(auth)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      tag: 'Session',
      summary: 'End this session and clear its cookie',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'signed out', schema: z.object({ signedOut: z.literal(true) }) } },
      handler: async ({ auth, req, res }) => {
        await accounts.logout(signedIn(auth));
        clearSessionCookie(req, res, cookie);
        return { status: 200, body: { signedOut: true as const } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/switch',
      tag: 'Session',
      summary: 'Move this session to another workspace you are a member of',
      scope: 'read',
      auth: 'session',
      body: z.strictObject({ workspace_id: z.string().min(1).max(100) }),
      responses: { 200: { description: 'the session', schema: sessionViewSchema }, 404: envelope('not a member') },
      handler: async ({ auth, body }) => ({
        status: 200,
        body: await presentSession(await accounts.switchWorkspace(signedIn(auth), body.workspace_id)),
      }),
    }),
    defineRoute({
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
      handler: async ({ auth }) => ({ status: 200, body: await accounts.setupSecondFactor(signedIn(auth)) }),
    }),
    defineRoute({
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
          () => accounts.verifySecondFactor(s, body.code),
          (err) => err instanceof ForbiddenError,
        );
        return { status: 200, body: { enabled: true as const, verifiedAt: out.verifiedAt.toISOString() } };
      },
    }),
    defineRoute({
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
          () => accounts.disableSecondFactor(s, body.code),
          (err) => err instanceof ForbiddenError,
        );
        return { status: 200, body: { enabled: false as const } };
      },
    }),
    defineRoute({
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
      handler: async ({ auth }) => ({ status: 200, body: await accounts.requestVerification(signedIn(auth)) }),
    }),
    defineRoute({
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
          endedSessions: await accounts.changePassword(signedIn(auth), body.current, body.password),
        },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/auth/profile',
      tag: 'Session',
      summary: 'Your name',
      scope: 'read',
      auth: 'session',
      body: z.strictObject({ name: z.string().trim().min(1).max(100).nullable() }),
      responses: { 200: { description: 'the session after the change', schema: sessionViewSchema } },
      handler: async ({ auth, body }) => {
        const s = signedIn(auth);
        const user = await accounts.updateProfile(s, body.name);
        return { status: 200, body: await presentSession({ ...s, user }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/sessions',
      tag: 'Session',
      summary: 'Your open sessions (this one marked current)',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'sessions', schema: z.object({ data: z.array(sessionRowSchema) }) } },
      handler: async ({ auth }) => {
        const s = signedIn(auth);
        const rows = await accounts.sessions(s.user.id);
        return { status: 200, body: { data: rows.map((r) => presentSessionRow(r, s.session.id)) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/sessions',
      tag: 'Session',
      summary: 'End one of your sessions (`id`), or every one but this',
      scope: 'read',
      auth: 'session',
      query: z.strictObject({ id: z.string().min(1).max(100).optional() }),
      responses: {
        200: { description: 'ended', schema: z.object({ ended: z.number().int() }) },
        404: envelope('no such session of yours'),
      },
      handler: async ({ auth, query }) => {
        const s = signedIn(auth);
        if (query.id) {
          await accounts.endSession(s, query.id);
          return { status: 200, body: { ended: 1 } };
        }
        return { status: 200, body: { ended: await accounts.endOtherSessions(s) } };
      },
    }),

    // --- members and invitations (a member's session, or a key) ------------------------------
    defineRoute({
      method: 'get',
      path: '/auth/members',
      tag: 'Session',
      summary: 'The workspace’s members and (for admins) its pending invitations',
      scope: 'read',
      responses: {
        200: {
          description: 'members',
          schema: z.object({ data: z.array(memberSchema), invites: z.array(inviteSchema) }),
        },
      },
      handler: async ({ auth }) => {
        const members = await accounts.members(auth.workspaceId);
        const invites = auth.scope === 'admin' ? await accounts.pendingInvites(auth.workspaceId) : [];
        return {
          status: 200,
          body: {
            data: members.map((m) => ({
              id: m.userId,
              email: m.email,
              name: m.name,
              role: m.role,
              emailVerified: m.emailVerified,
              joinedAt: m.joinedAt.toISOString(),
            })),
            invites: invites.map((i) => ({
              id: i.id,
              email: i.email,
              role: i.role as Role,
              createdAt: i.createdAt.toISOString(),
              expiresAt: i.expiresAt.toISOString(),
            })),
          },
        };
      },
    }),
    defineRoute({
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
        } = await accounts.invite(
          {
            userId: auth.member?.userId ?? null,
            role: actorRole(auth),
            workspaceId: auth.workspaceId,
            workspaceName: auth.workspace.name,
          },
          body,
        );
        return {
          status: 201,
          body: {
            id: invite.id,
            email: invite.email,
            role: invite.role as Role,
            createdAt: invite.createdAt.toISOString(),
            expiresAt: invite.expiresAt.toISOString(),
            ...(code ? { token: code } : {}),
            sent,
          },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/invites/:id',
      tag: 'Session',
      summary: 'Withdraw a pending invitation (admin)',
      scope: 'admin',
      params: z.object({ id: z.string().min(1).max(100) }),
      responses: { 200: { description: 'withdrawn', schema: z.object({ deleted: z.literal(true) }) } },
      handler: async ({ auth, params }) => {
        await accounts.deleteInvite(auth.workspaceId, params.id);
        return { status: 200, body: { deleted: true as const } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/auth/members/:user',
      tag: 'Session',
      summary: 'Change a member’s role (admin; ownership only by an owner; never the last owner)',
      recentSecondFactor: true,
      scope: 'admin',
      params: z.object({ user: z.string().min(1).max(100) }),
      body: z.strictObject({ role: roleEnum }),
      responses: {
        200: { description: 'changed', schema: z.object({ id: z.string(), role: roleEnum }) },
        409: envelope('it would leave the workspace without an owner'),
      },
      handler: async ({ auth, params, body }) => {
        requireUnlimitedKey(auth, 'change roles');
        await accounts.setRole({ role: actorRole(auth), workspaceId: auth.workspaceId }, params.user, body.role);
        return { status: 200, body: { id: params.user, role: body.role } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/members/:user',
      tag: 'Session',
      summary: 'Remove a member (admin), or leave the workspace yourself; their sessions in it end',
      recentSecondFactor: true,
      scope: 'read',
      params: z.object({ user: z.string().min(1).max(100) }),
      responses: {
        200: { description: 'removed', schema: z.object({ removed: z.literal(true) }) },
        409: envelope('it would leave the workspace without an owner'),
      },
      handler: async ({ auth, params }) => {
        await accounts.removeMember(
          { role: actorRole(auth), workspaceId: auth.workspaceId, userId: auth.member?.userId ?? null },
          params.user,
        );
        return { status: 200, body: { removed: true as const } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/auth/workspace',
      tag: 'Session',
      summary: 'Rename the workspace (admin)',
      scope: 'admin',
      body: z.strictObject({ name: z.string().trim().min(1).max(100) }),
      responses: { 200: { description: 'renamed', schema: z.object({ id: z.string(), name: z.string() }) } },
      handler: async ({ auth, body }) => {
        await workspaces.rename(auth.workspaceId, body.name);
        return { status: 200, body: { id: auth.workspaceId, name: body.name } };
      },
    }),
  ];
};
