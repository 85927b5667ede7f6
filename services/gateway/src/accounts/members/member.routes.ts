import { z } from 'zod';
import { requireUnlimitedKey } from '../../http/auth.js';
import { defineRoute } from '../../http/route.js';
import type { WorkspaceService } from '../../services/workspace.service.js';
import type { Accounts } from '../accounts.js';
import { envelope, roleEnum } from '../account.schemas.js';
import { actorRole } from '../caller.js';
import { inviteSchema, presentInvite } from '../invites/invite.routes.js';

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

/** The workspace's members (a member's session, or a key): listed, roles changed, removed; its name. */
export const memberRoutes = (accounts: Accounts, workspaces: WorkspaceService) => ({
  list: defineRoute({
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
      const members = await accounts.members.list(auth.workspaceId);
      const invites = auth.scope === 'admin' ? await accounts.invites.pending(auth.workspaceId) : [];
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
          invites: invites.map(presentInvite),
        },
      };
    },
  }),
  setRole: defineRoute({
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
      await accounts.members.setRole({ role: actorRole(auth), workspaceId: auth.workspaceId }, params.user, body.role);
      return { status: 200, body: { id: params.user, role: body.role } };
    },
  }),
  remove: defineRoute({
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
      await accounts.members.remove(
        { role: actorRole(auth), workspaceId: auth.workspaceId, userId: auth.member?.userId ?? null },
        params.user,
      );
      return { status: 200, body: { removed: true as const } };
    },
  }),
  renameWorkspace: defineRoute({
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
});
