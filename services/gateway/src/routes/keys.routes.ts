import type { ApiKey } from '@tidemark/db';
import type { Request } from 'express';
import { z } from 'zod';
import { errorEnvelopeSchema, idParam, listOf } from '../http/common.schemas.js';
import { pageQuery, toPage } from '../http/pagination.js';
import { defineRoute } from '../http/route.js';
import type { ApiKeyService } from '../services/api-key.service.js';

const scopeEnum = z.enum(['read', 'write', 'admin']);

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('the first characters of the secret, to recognise it'),
    scopes: z.array(scopeEnum),
    projects: z.array(z.string()).describe('allow-list; empty = every project'),
    rpm: z.number().int().nullable(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKey' });

const createdKeySchema = apiKeySchema
  .extend({ key: z.string().describe('the secret: shown in this answer only') })
  .meta({ id: 'CreatedApiKey' });

const presentKey = (k: ApiKey): z.infer<typeof apiKeySchema> => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes as z.infer<typeof scopeEnum>[],
  projects: k.projects,
  rpm: k.rpm,
  expiresAt: k.expiresAt?.toISOString() ?? null,
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  createdAt: k.createdAt.toISOString(),
});

const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(scopeEnum).min(1).max(3).describe('read < write < admin; the key acts at the highest'),
  projects: z.array(z.string().min(1).max(100)).max(1000).default([]).describe('allow-list; empty = every project'),
  expires_in_days: z.number().int().min(1).max(3650).nullable().default(null).describe('null = never expires'),
  rpm: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .nullable()
    .default(null)
    .describe("this key's own rate; the lowest of key, workspace and plan wins"),
});

export const keyRoutes = (keys: ApiKeyService, publicBaseUrl?: string) => [
  defineRoute({
    method: 'get',
    path: '/me/keys',
    tag: 'Workspace',
    summary: 'API keys of the workspace (never their secrets)',
    description: 'A key limited to some projects sees only the keys limited within those projects.',
    scope: 'admin',
    query: pageQuery({ max: 1000, default: 100 }),
    responses: { 200: { description: 'keys, newest first', schema: listOf(apiKeySchema) } },
    handler: async ({ auth, query, req }) => {
      const rows = await keys.list(auth, query.cursor, query.limit + 1);
      return { status: 200, body: toPage(req as Request, rows, query.limit, presentKey, publicBaseUrl) };
    },
  }),
  defineRoute({
    method: 'post',
    recentSecondFactor: true,
    path: '/me/keys',
    tag: 'Workspace',
    summary: 'Create an API key; the secret is in this answer only',
    description:
      'A key is never wider than the caller creating it: its scope is at most the caller’s (a member’s role’s), and a caller key limited to projects, to its own rpm or to an expiry can only create keys limited within them (403 forbidden naming each field, `details.fields[]`).',
    scope: 'admin',
    body: createKeyBody,
    idempotent: true,
    secretFields: ['key'],
    responses: {
      201: { description: 'the key with its secret', schema: createdKeySchema },
      403: {
        description: 'the scope is below admin, or the key asked for would be wider than the caller (forbidden)',
        schema: errorEnvelopeSchema,
      },
    },
    handler: async ({ auth, body }) => {
      const { key, secret } = await keys.create(auth, {
        name: body.name,
        scopes: body.scopes,
        projects: body.projects,
        expiresInDays: body.expires_in_days,
        rpm: body.rpm,
      });
      return { status: 201, body: { ...presentKey(key), key: secret } };
    },
  }),
  defineRoute({
    method: 'delete',
    recentSecondFactor: true,
    path: '/me/keys/:id',
    tag: 'Workspace',
    summary: 'Revoke an API key',
    description: 'A key limited to some projects revokes only keys limited within those projects; any other is 404.',
    scope: 'admin',
    params: idParam,
    responses: { 204: { description: 'revoked' } },
    handler: async ({ auth, params }) => {
      await keys.revoke(auth, params.id);
      return { status: 204 };
    },
  }),
];
