import type { Request } from 'express';
import type { AuthContext } from '../http/route.js';
import type { Role } from './members/roles.js';
import type { SignedIn } from './sessions/session.repository.js';
import type { ClientMeta } from './sessions/session.service.js';

/** The member behind an `auth: 'session'` route (the router lets no key through to one). */
export const signedIn = (auth: AuthContext): SignedIn => auth.member!.signedIn;

/** The role a caller acts with on members: a member's own, or its key scope's (never owner). */
export const actorRole = (auth: AuthContext): Role =>
  auth.member?.role ?? ({ admin: 'admin', write: 'member', read: 'viewer' } as const)[auth.scope];

/** The browser a session is opened for, as the list of sessions shows it. */
export const clientMeta = (req: Request): ClientMeta => ({
  userAgent: req.get('user-agent') ?? null,
  ip: req.ip ?? null,
});
