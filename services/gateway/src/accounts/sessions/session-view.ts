import { z } from 'zod';
import { roleEnum } from '../account.schemas.js';
import type { SignedIn } from './session.repository.js';
import type { SessionService } from './session.service.js';

export const sessionViewSchema = z
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

/** The answer of every route that opens, shows or changes a session. */
export const presentSession = async (
  sessions: SessionService,
  s: SignedIn,
): Promise<z.infer<typeof sessionViewSchema>> => ({
  user: {
    id: s.user.id,
    email: s.user.email,
    name: s.user.name,
    emailVerified: s.user.emailVerifiedAt !== null,
    createdAt: s.user.createdAt.toISOString(),
  },
  workspace: { id: s.workspace.id, name: s.workspace.name, plan: s.workspace.plan },
  role: s.role,
  workspaces: await sessions.memberships(s.user.id),
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
