import { connectionProviderSchema, connectionSchema, connectionTestSchema } from '@tidemark/contracts';
import { z } from 'zod';
import type { DeliveryClient } from '../clients/delivery.client.js';
import { idParam, listOf } from '../http/common.schemas.js';
import { defineRoute } from '../http/route.js';
import { connectionProviderToRest, connectionTestToRest, connectionToRest } from '../mappers/connection.mapper.js';

const name = z.string().trim().min(1).max(200);
const config = z
  .record(z.string().min(1).max(100), z.unknown())
  .describe('the provider’s fields (GET /connections/providers)');
const secrets = z
  .record(z.string().min(1).max(100), z.string().max(10_000))
  .describe('the provider’s secrets; stored encrypted and never returned');

export const connectionRoutes = (delivery: DeliveryClient) => [
  // Before /connections/:id, which would otherwise take "providers" for an id.
  defineRoute({
    method: 'get',
    path: '/connections/providers',
    tag: 'Connections',
    summary: 'The catalogue: each provider’s fields, secrets, note and whether it is verified',
    scope: 'read',
    responses: {
      200: { description: 'providers', schema: z.object({ data: z.array(connectionProviderSchema) }) },
    },
    handler: async () => {
      const res = await delivery.call('providers', {});
      return { status: 200, body: { data: res.providers.map(connectionProviderToRest) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/connections',
    tag: 'Connections',
    summary: 'The workspace’s connections (secrets never returned)',
    scope: 'admin',
    responses: { 200: { description: 'connections', schema: listOf(connectionSchema) } },
    handler: async ({ auth }) => {
      const res = await delivery.call('listConnections', { workspaceId: auth.workspaceId });
      return { status: 200, body: { data: res.connections.map(connectionToRest), next: null, cursor: null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/connections',
    tag: 'Connections',
    summary: 'Add a connection',
    scope: 'admin',
    idempotent: true,
    body: z.strictObject({
      provider: z.string().min(1).max(100),
      name,
      config: config.default({}),
      secrets: secrets.default({}),
    }),
    responses: { 201: { description: 'the connection', schema: connectionSchema } },
    handler: async ({ auth, body }) => {
      const res = await delivery.call('createConnection', { workspaceId: auth.workspaceId, ...body });
      return { status: 201, body: connectionToRest(res.connection) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/connections/:id',
    tag: 'Connections',
    summary: 'One connection',
    scope: 'admin',
    params: idParam,
    responses: { 200: { description: 'the connection', schema: connectionSchema } },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('getConnection', { workspaceId: auth.workspaceId, connectionId: params.id });
      return { status: 200, body: connectionToRest(res.connection) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/connections/:id',
    tag: 'Connections',
    summary: 'Change a connection; config fields and secrets given replace theirs (an empty secret removes it)',
    scope: 'admin',
    params: idParam,
    body: z.strictObject({ name: name.optional(), config: config.optional(), secrets: secrets.optional() }),
    responses: { 200: { description: 'the connection after the change', schema: connectionSchema } },
    handler: async ({ auth, params, body }) => {
      const res = await delivery.call('updateConnection', {
        workspaceId: auth.workspaceId,
        connectionId: params.id,
        name: body.name,
        config: body.config,
        secrets: body.secrets ?? {},
      });
      return { status: 200, body: connectionToRest(res.connection) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/connections/:id',
    tag: 'Connections',
    summary: 'Delete a connection',
    scope: 'admin',
    params: idParam,
    responses: { 204: { description: 'deleted' } },
    handler: async ({ auth, params }) => {
      await delivery.call('deleteConnection', { workspaceId: auth.workspaceId, connectionId: params.id });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/connections/:id/test',
    tag: 'Connections',
    summary: 'Call the connection once and say whether it answered (tokens spent are recorded)',
    scope: 'admin',
    params: idParam,
    responses: { 200: { description: 'the outcome', schema: connectionTestSchema } },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('testConnection', { workspaceId: auth.workspaceId, connectionId: params.id });
      return { status: 200, body: connectionTestToRest(res.test) };
    },
  }),
];
