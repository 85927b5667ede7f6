import { UnauthorizedError } from '@tidemark/errors';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { FailureCounter } from '../../http/rate-limit.js';
import { defineRoute } from '../../http/route.js';
import type { Accounts } from '../accounts.js';
import { code, email, envelope, password } from '../account.schemas.js';
import { clientMeta, signedIn } from '../caller.js';
import { PASSWORD_MAX } from '../password-hash.js';
import { clearSessionCookie, setSessionCookie, type CookieOptions } from './session-cookie.js';
import type { SessionRow } from './session.repository.js';
import { presentSession, sessionViewSchema } from './session-view.js';

const LOGIN_ATTEMPTS = { max: 20, windowMs: 15 * 60_000 };

const sessionRowSchema = z.object({
  id: z.string(),
  current: z.boolean(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
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

/** Sign-up and sign-in (they set the cookie), the session itself, and ending sessions. */
export const sessionRoutes = (accounts: Accounts, redis: Redis, cookie: CookieOptions) => {
  // Wrong passwords per address (fail closed: 503 without Redis).
  const loginFailures = new FailureCounter(redis, 'login', LOGIN_ATTEMPTS.max, LOGIN_ATTEMPTS.windowMs);

  return {
    signup: defineRoute({
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
        const out = await accounts.sessions.signup(body, clientMeta(req));
        if (!('opened' in out)) return { status: 202, body: { accepted: true as const } };
        setSessionCookie(req, res, out.opened.token, cookie);
        return { status: 201, body: await presentSession(accounts.sessions, out.opened.signedIn) };
      },
    }),
    login: defineRoute({
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
            accounts.sessions.login(
              { email: body.email, password: body.password, workspaceId: body.workspace_id, code: body.code },
              clientMeta(req),
            ),
          (err) => err instanceof UnauthorizedError,
        );
        setSessionCookie(req, res, opened.token, cookie);
        return { status: 200, body: await presentSession(accounts.sessions, opened.signedIn) };
      },
    }),
    session: defineRoute({
      method: 'get',
      path: '/auth/session',
      tag: 'Session',
      summary: 'Who is signed in, in which workspace, with which role',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'the session', schema: sessionViewSchema } },
      handler: async ({ auth }) => ({ status: 200, body: await presentSession(accounts.sessions, signedIn(auth)) }),
    }),
    logout: defineRoute({
      method: 'post',
      path: '/auth/logout',
      tag: 'Session',
      summary: 'End this session and clear its cookie',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'signed out', schema: z.object({ signedOut: z.literal(true) }) } },
      handler: async ({ auth, req, res }) => {
        await accounts.sessions.logout(signedIn(auth));
        clearSessionCookie(req, res, cookie);
        return { status: 200, body: { signedOut: true as const } };
      },
    }),
    switchWorkspace: defineRoute({
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
        body: await presentSession(
          accounts.sessions,
          await accounts.sessions.switchWorkspace(signedIn(auth), body.workspace_id),
        ),
      }),
    }),
    profile: defineRoute({
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
        const user = await accounts.sessions.updateProfile(s, body.name);
        return { status: 200, body: await presentSession(accounts.sessions, { ...s, user }) };
      },
    }),
    list: defineRoute({
      method: 'get',
      path: '/auth/sessions',
      tag: 'Session',
      summary: 'Your open sessions (this one marked current)',
      scope: 'read',
      auth: 'session',
      responses: { 200: { description: 'sessions', schema: z.object({ data: z.array(sessionRowSchema) }) } },
      handler: async ({ auth }) => {
        const s = signedIn(auth);
        const rows = await accounts.sessions.list(s.user.id);
        return { status: 200, body: { data: rows.map((r) => presentSessionRow(r, s.session.id)) } };
      },
    }),
    end: defineRoute({
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
          await accounts.sessions.end(s, query.id);
          return { status: 200, body: { ended: 1 } };
        }
        return { status: 200, body: { ended: await accounts.sessions.endOthers(s) } };
      },
    }),
  };
};
