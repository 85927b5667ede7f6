import { ForbiddenError } from '@tidemark/errors';
import { planOf, PLANS } from '@tidemark/contracts';
import { z } from 'zod';
import { SCOPE_LEVEL, defineRoute, type AuthContext } from '../http/route.js';
import { effectiveRpm } from '../http/auth.js';
import type { WorkspaceService } from '../services/workspace.service.js';

const scopeEnum = z.enum(['read', 'write', 'admin']);

export const meSchema = z
  .object({
    workspace: z.object({
      id: z.string(),
      name: z.string(),
      plan: z.string(),
      createdAt: z.string(),
      settings: z.object({
        max_rpm: z.number().int().nullable().describe('rate ceiling of every key; null = the plan default'),
        require_mfa: z.boolean(),
      }),
    }),
    plan: z.object({ name: z.string(), rpm: z.number().int(), monthlyCredits: z.number().int() }),
    limits: z.object({
      rpm: z.number().int().describe('requests per minute this key gets: the lowest of key, workspace and plan'),
      batchUrls: z.number().int(),
      scrapeTimeoutMaxSeconds: z.number().int(),
      mapLimitMax: z.number().int(),
      listLimitMax: z.number().int(),
    }),
    credits: z.object({ used: z.number().int(), remaining: z.number().int(), granted: z.number().int() }),
    key: z
      .object({
        id: z.string(),
        name: z.string(),
        prefix: z.string(),
        scope: scopeEnum,
        scopes: z.array(scopeEnum),
        projects: z.array(z.string()),
        rpm: z.number().int().nullable(),
        expiresAt: z.string().nullable(),
      })
      .nullable()
      .describe('the key calling; null when a signed-in member calls'),
    member: z
      .object({
        id: z.string(),
        email: z.string(),
        role: z.enum(['owner', 'admin', 'member', 'viewer']),
        emailVerified: z.boolean(),
      })
      .nullable()
      .describe('the signed-in member calling; null when a key calls'),
    can: z.object({ read: z.boolean(), write: z.boolean(), admin: z.boolean() }).describe('what the caller may do'),
  })
  .meta({ id: 'Me' });

const presentMe = (
  auth: AuthContext,
  credits: { granted: number; used: number; remaining: number },
  maxRpm = auth.workspace.maxRpm,
): z.infer<typeof meSchema> => {
  const plan = planOf(auth.workspace.plan);
  return {
    workspace: {
      id: auth.workspace.id,
      name: auth.workspace.name,
      plan: auth.workspace.plan,
      createdAt: auth.workspace.createdAt.toISOString(),
      settings: { max_rpm: maxRpm, require_mfa: auth.workspace.requireMfa },
    },
    plan: { name: auth.workspace.plan, rpm: plan.rpm, monthlyCredits: plan.monthlyCredits },
    limits: {
      rpm: effectiveRpm(auth.keyRpm, maxRpm, auth.workspace.plan),
      batchUrls: 500,
      scrapeTimeoutMaxSeconds: 120,
      mapLimitMax: 50_000,
      listLimitMax: 1000,
    },
    credits: { used: credits.used, remaining: credits.remaining, granted: credits.granted },
    key: auth.member
      ? null
      : {
          id: auth.keyId,
          name: auth.keyName,
          prefix: auth.keyPrefix,
          scope: auth.scope,
          scopes: auth.scopes,
          projects: auth.projects,
          rpm: auth.keyRpm,
          expiresAt: auth.expiresAt?.toISOString() ?? null,
        },
    member: auth.member
      ? {
          id: auth.member.userId,
          email: auth.member.email,
          role: auth.member.role,
          emailVerified: auth.member.emailVerified,
        }
      : null,
    can: {
      read: true,
      // An unverified member reads only (email_unverified).
      write: SCOPE_LEVEL[auth.scope] >= SCOPE_LEVEL.write && (auth.member?.emailVerified ?? true),
      admin: SCOPE_LEVEL[auth.scope] >= SCOPE_LEVEL.admin && (auth.member?.emailVerified ?? true),
    },
  };
};

const maxPlanRpm = Math.max(...Object.values(PLANS).map((p) => p.rpm));

export const meRoutes = (workspaces: WorkspaceService) => [
  defineRoute({
    method: 'get',
    path: '/me',
    tag: 'Workspace',
    summary: 'The workspace, its plan, limits and credits, and what the caller (key or member) may do',
    scope: 'read',
    responses: { 200: { description: 'the workspace', schema: meSchema } },
    handler: async ({ auth }) => ({ status: 200, body: presentMe(auth, await workspaces.credits(auth.workspaceId)) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/me',
    tag: 'Workspace',
    summary: 'Workspace settings: the rate ceiling (admin) and the second-factor requirement (an owner with a factor)',
    scope: 'admin',
    recentSecondFactor: true,
    body: z
      .strictObject({
        max_rpm: z
          .number()
          .int()
          .min(1)
          .max(maxPlanRpm)
          .nullable()
          .optional()
          .describe('requests per minute any key of the workspace may make; null = the plan default'),
        require_mfa: z
          .boolean()
          .optional()
          .describe('every member must use two-factor; set by a signed-in owner who has it on'),
      })
      .refine((b) => b.max_rpm !== undefined || b.require_mfa !== undefined, 'give max_rpm or require_mfa'),
    responses: { 200: { description: 'the workspace after the change', schema: meSchema } },
    handler: async ({ auth, body }) => {
      if (body.require_mfa !== undefined) {
        const s = auth.member?.signedIn;
        if (!s || s.role !== 'owner' || !s.user.mfaEnabledAt)
          throw new ForbiddenError('the second-factor requirement is set by a signed-in owner who has two-factor on');
        await workspaces.setRequireMfa(auth.workspaceId, body.require_mfa);
      }
      // The ceiling holds every key of the workspace, its caller included: a key limited to some
      // projects or to a rate of its own would reach past its limits by moving it (issue 12, item 4).
      if (body.max_rpm !== undefined && !auth.member && (auth.projects.length > 0 || auth.keyRpm !== null))
        throw new ForbiddenError(
          `a key limited to ${auth.projects.length > 0 ? 'some projects' : 'a rate of its own'} cannot change the workspace's rate ceiling: it holds every key of the workspace`,
        );
      if (body.max_rpm !== undefined) await workspaces.setMaxRpm(auth.workspaceId, body.max_rpm);
      const after = {
        ...auth,
        workspace: { ...auth.workspace, requireMfa: body.require_mfa ?? auth.workspace.requireMfa },
      };
      return {
        status: 200,
        body: presentMe(
          after,
          await workspaces.credits(auth.workspaceId),
          body.max_rpm !== undefined ? body.max_rpm : auth.workspace.maxRpm,
        ),
      };
    },
  }),
];
