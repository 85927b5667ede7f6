import type { Redis } from 'ioredis';
import type { AnyRoute } from '../http/route.js';
import type { WorkspaceService } from '../services/workspace.service.js';
import type { Accounts } from './accounts.js';
import { emailVerificationRoutes } from './email-verification/email-verification.routes.js';
import { inviteRoutes } from './invites/invite.routes.js';
import { memberRoutes } from './members/member.routes.js';
import { passwordRoutes } from './passwords/password.routes.js';
import { secondFactorRoutes } from './second-factor/second-factor.routes.js';
import type { CookieOptions } from './sessions/session-cookie.js';
import { sessionRoutes } from './sessions/session.routes.js';

/**
 * Every /auth route, in the order they are mounted and printed into the OpenAPI document (the
 * use cases interleave: this order predates the split and the generated SDK follows it).
 */
export const accountRoutes = (
  accounts: Accounts,
  workspaces: WorkspaceService,
  redis: Redis,
  cookie: CookieOptions,
): AnyRoute[] => {
  const sessions = sessionRoutes(accounts, redis, cookie);
  const verification = emailVerificationRoutes(accounts);
  const passwords = passwordRoutes(accounts);
  const secondFactor = secondFactorRoutes(accounts, redis);
  const invites = inviteRoutes(accounts, cookie);
  const members = memberRoutes(accounts, workspaces);
  const ordered = [
    // Signed out.
    sessions.signup,
    sessions.login,
    verification.verify,
    passwords.forgot,
    passwords.reset,
    invites.info,
    invites.accept,
    // Signed in.
    sessions.session,
    sessions.logout,
    sessions.switchWorkspace,
    secondFactor.setup,
    secondFactor.verify,
    secondFactor.disable,
    verification.request,
    passwords.change,
    sessions.profile,
    sessions.list,
    sessions.end,
    // Members and invitations (a member's session, or a key).
    members.list,
    invites.create,
    invites.withdraw,
    members.setRole,
    members.remove,
    members.renameWorkspace,
  ];
  // A route defined above but left out of the list would silently not exist.
  const defined = [sessions, verification, passwords, secondFactor, invites, members].flatMap(Object.values);
  if (ordered.length !== defined.length || new Set(ordered).size !== defined.length)
    throw new Error('accountRoutes must list every /auth route once');
  return ordered;
};
