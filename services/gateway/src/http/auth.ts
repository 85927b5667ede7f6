import type { NextFunction, Request, Response } from 'express';
import { planOf } from '@tidemark/contracts';
import { ApiError, ForbiddenError, NotFoundError, UnauthorizedError } from '@tidemark/errors';
import type { Role } from '../accounts/members/roles.js';
import { sessionToken } from '../accounts/sessions/session-cookie.js';
import type { SignedIn } from '../accounts/sessions/session.repository.js';
import type { SessionService } from '../accounts/sessions/session.service.js';
import type { ApiKeyRepository } from '../repositories/api-key.repository.js';
import { workspaceSummary } from '../repositories/workspace.repository.js';
import type { KeyCache } from './key-cache.js';
import { hashKeySecret, KEY_PREFIX } from '../services/key-secret.js';
import { SCOPE_LEVEL, type AuthContext, type Scope } from './route.js';

const TOUCH_EVERY_MS = 60_000;

const highest = (scopes: string[]): Scope =>
  (['admin', 'write', 'read'] as const).find((s) => scopes.includes(s)) ?? 'read';

/** The lowest of the key's own rate, the workspace ceiling and the plan default. */
export const effectiveRpm = (keyRpm: number | null, maxRpm: number | null, plan: string): number =>
  Math.min(keyRpm ?? Infinity, maxRpm ?? Infinity, planOf(plan).rpm);

/** What a member's role lets them do, in key scopes: a member writes, an admin or owner administers. */
export const ROLE_SCOPE: Record<Role, Scope> = { owner: 'admin', admin: 'admin', member: 'write', viewer: 'read' };

/** The auth context of a signed-in member: the key fields empty, the scope their role's. */
export const memberContext = (s: SignedIn): AuthContext => {
  const scope = ROLE_SCOPE[s.role];
  return {
    member: {
      userId: s.user.id,
      email: s.user.email,
      role: s.role,
      sessionId: s.session.id,
      emailVerified: s.user.emailVerifiedAt !== null,
      signedIn: s,
    },
    rateKey: `user:${s.user.id}`,
    keyId: '',
    keyName: '',
    keyPrefix: '',
    workspaceId: s.workspace.id,
    scope,
    scopes: [scope],
    projects: [],
    keyRpm: null,
    expiresAt: s.session.expiresAt,
    workspace: s.workspace,
    rpm: effectiveRpm(null, s.workspace.maxRpm, s.workspace.plan),
  };
};

/**
 * Who is calling: a Bearer API key, looked up by its hash (a revoked, unknown or expired key is
 * 401), or else the web application's session cookie (an ended or expired session is 401). The
 * caller's workspace, scope and allow-list land in res.locals.auth.
 */
export const authenticate =
  (cache: KeyCache, keys: ApiKeyRepository, sessions: SessionService) =>
  async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    if (!header) {
      const token = sessionToken(req);
      if (!token) throw new UnauthorizedError('missing API key: send Authorization: Bearer <key> (or sign in)');
      const signedIn = await sessions.authenticate(token);
      if (!signedIn) throw new UnauthorizedError('the session has ended or expired: sign in again');
      const tenant = req.get('x-service-tenant');
      if (tenant && tenant !== signedIn.workspace.id) throw new NotFoundError('workspace');
      res.locals.auth = memberContext(signedIn);
      return next();
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1] || !m[1].startsWith(KEY_PREFIX)) throw new UnauthorizedError('invalid API key');
    const key = await cache.findActiveByHash(hashKeySecret(m[1]));
    if (!key) throw new UnauthorizedError('invalid API key');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) {
      throw new UnauthorizedError(`API key expired at ${key.expiresAt.toISOString()}`);
    }
    // x-service-tenant names the workspace to act in. Until sub-accounts exist a key reaches
    // only its own, so any other value is a workspace this key cannot see: 404, never 403.
    const tenant = req.get('x-service-tenant');
    if (tenant && tenant !== key.workspaceId) throw new NotFoundError('workspace');

    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
      key.lastUsedAt = new Date(); // the cached copy too, so a busy key is written once a minute
      void keys.touch(key.id).catch(() => undefined); // bookkeeping; never fails a request
    }
    const ws = key.workspace;
    const auth: AuthContext = {
      member: null,
      rateKey: `key:${key.id}`,
      keyId: key.id,
      keyName: key.name,
      keyPrefix: key.prefix,
      workspaceId: key.workspaceId,
      scope: highest(key.scopes),
      scopes: key.scopes as Scope[],
      projects: key.projects,
      keyRpm: key.rpm,
      expiresAt: key.expiresAt,
      workspace: workspaceSummary(ws),
      rpm: effectiveRpm(key.rpm, ws.maxRpm, ws.plan),
    };
    res.locals.auth = auth;
    next();
  };

/**
 * 403 forbidden when the caller's scope is below what the route needs; a member whose e-mail is
 * not verified may read but not change anything (email_unverified).
 */
export const requireScope = (auth: AuthContext, needed: Scope): void => {
  if (SCOPE_LEVEL[auth.scope] < SCOPE_LEVEL[needed]) {
    if (auth.member)
      throw new ForbiddenError(
        `this route needs the ${needed === 'write' ? 'member' : needed} role; you are ${auth.member.role}`,
      );
    throw new ForbiddenError(`this route needs a key with ${needed} scope; this key has ${auth.scope}`);
  }
  if (auth.member && !auth.member.emailVerified && needed !== 'read')
    throw new ApiError(
      'email_unverified',
      'confirm your e-mail address first (POST /v1/auth/verify/request sends the code again)',
    );
};

/** How long a shown second-factor code counts for the actions that ask again (spec: ten minutes). */
const SECOND_FACTOR_FRESH_MS = 10 * 60_000;

/**
 * A member's second factor (keys are never asked). A session lacks it when the member has
 * two-factor on and has not shown a code in this session, or when the workspace requires
 * two-factor and the member has none: then only the session's own routes (`auth: 'session'`:
 * show a code, set one up, see the session, sign out) answer, the rest 403 mfa_required. The
 * few actions that ask again want a code shown in the last ten minutes (403 mfa_stale).
 */
export const requireSecondFactor = (
  auth: AuthContext,
  route: { auth?: string; recentSecondFactor?: boolean },
): void => {
  const s = auth.member?.signedIn;
  if (!s) return;
  const enabled = s.user.mfaEnabledAt !== null;
  if (route.auth !== 'session') {
    if (enabled && !s.session.mfaAt)
      throw new ApiError('mfa_required', 'show your second-factor code first: POST /v1/auth/2fa/verify {code}');
    if (!enabled && s.workspace.requireMfa)
      throw new ApiError(
        'mfa_required',
        'this workspace requires two-factor: set it up with POST /v1/auth/2fa/setup, then POST /v1/auth/2fa/verify',
      );
  }
  if (
    route.recentSecondFactor &&
    enabled &&
    (!s.session.mfaAt || Date.now() - s.session.mfaAt.getTime() > SECOND_FACTOR_FRESH_MS)
  )
    throw new ApiError(
      'mfa_stale',
      'this asks for a fresh second-factor code: POST /v1/auth/2fa/verify {code}, then again',
    );
};

/**
 * Members reach every project at the workspace's rate: a key limited to some projects or to a
 * rate of its own would reach further through a member it invites or promotes, so it may not
 * (403). A session and an unlimited key pass.
 */
export const requireUnlimitedKey = (auth: AuthContext, action: string): void => {
  if (auth.member) return;
  if (auth.projects.length > 0)
    throw new ForbiddenError(`a key limited to some projects cannot ${action}: a member reaches every project`);
  if (auth.keyRpm !== null)
    throw new ForbiddenError(`a key with a rate of its own cannot ${action}: a member is not held to it`);
};

/** A project outside the key's allow-list is invisible: 404, never 403. */
export const canSeeProject = (auth: AuthContext, projectId: string): boolean =>
  auth.projects.length === 0 || auth.projects.includes(projectId);
