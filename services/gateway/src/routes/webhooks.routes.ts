import type { Request } from 'express';
import {
  deliverySchema,
  projectWebhooksSchema,
  webhookChannelSchema,
  type DeliveryView,
  type WebhookChannelView,
} from '@tidemark/contracts';
import { NotFoundError } from '@tidemark/errors';
import { z } from 'zod';
import type { DeliveryClient } from '../clients/delivery.client.js';
import { canSeeProject } from '../http/auth.js';
import { errorEnvelopeSchema, idParam, listOf } from '../http/common.schemas.js';
import { encodeCursor, nextLink, pageQuery, type Page } from '../http/pagination.js';
import { defineRoute, type AuthContext } from '../http/route.js';
import { deliveryToRest, projectWebhooksToRest, webhookChannelToRest } from '../mappers/webhook.mapper.js';

const caller = (auth: AuthContext) => ({ workspaceId: auth.workspaceId, projects: auth.projects });

/** A page whose cursor is the id `key` picks from its last row. */
const paged = <T>(
  req: Request,
  rows: T[],
  more: boolean,
  key: (row: T) => string,
  limit: number,
  publicBaseUrl?: string,
): Page<T> => {
  const cursor = more && rows.length ? encodeCursor(key(rows[rows.length - 1]!)) : null;
  return { data: rows, next: cursor ? nextLink(req, cursor, limit, publicBaseUrl) : null, cursor };
};

/** A project id of a path this key may not see is 404 before anything is asked. */
const visibleProject = (auth: AuthContext, id: string) => {
  if (!canSeeProject(auth, id)) throw new NotFoundError('project');
  return id;
};

export const webhookRoutes = (delivery: DeliveryClient, publicBaseUrl?: string) => [
  defineRoute({
    method: 'get',
    path: '/webhooks',
    tag: 'Webhooks',
    summary: 'Every project’s webhook and chat channel with its health',
    description:
      'One entry per channel (kind webhook or chat; a chat channel names its service and its URL is masked), paged by project, newest project first.',
    scope: 'read',
    query: pageQuery({ max: 1000, default: 100 }),
    responses: { 200: { description: 'channels', schema: listOf(webhookChannelSchema) } },
    handler: async ({ auth, query, req }) => {
      const res = await delivery.call('listChannels', { ...caller(auth), before: query.cursor, take: query.limit });
      return {
        status: 200,
        body: paged<WebhookChannelView>(
          req,
          res.channels.map(webhookChannelToRest),
          res.more,
          (c) => c.projectId,
          query.limit,
          publicBaseUrl,
        ),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/:id/webhooks',
    tag: 'Webhooks',
    summary: 'A project’s webhook: signing secret, events, health, recent deliveries',
    description:
      'The signing secret is returned to admin keys only (and minted on their first read); other keys get `secretHidden: true` and their read mints nothing.',
    scope: 'read',
    params: idParam,
    responses: { 200: { description: 'the project’s webhook', schema: projectWebhooksSchema } },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('projectWebhooks', {
        ...caller(auth),
        projectId: visibleProject(auth, params.id),
        revealSecret: auth.scope === 'admin',
      });
      return { status: 200, body: projectWebhooksToRest(res.webhooks) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/webhooks/test',
    tag: 'Webhooks',
    summary: 'Send a test run.finished (test: true) to the webhook and the chat channel',
    scope: 'write',
    params: idParam,
    responses: {
      202: {
        description: 'queued: follow them in GET /webhooks/deliveries',
        schema: z.object({ deliveries: z.array(deliverySchema) }),
      },
      409: { description: 'the project has no webhook_url or chat_url', schema: errorEnvelopeSchema },
    },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('sendTest', { ...caller(auth), projectId: visibleProject(auth, params.id) });
      return { status: 202, body: { deliveries: res.deliveries.map(deliveryToRest) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/projects/:id/webhooks/secret',
    recentSecondFactor: true,
    tag: 'Webhooks',
    summary: 'Rotate the signing secret; the old one stops signing at once',
    scope: 'admin',
    secretFields: ['secret'],
    params: idParam,
    responses: {
      200: {
        description: 'the new secret',
        schema: z.object({ secret: z.string().describe('whsec_ + base64 of 24 bytes') }).meta({ id: 'WebhookSecret' }),
      },
    },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('rotateSecret', { ...caller(auth), projectId: visibleProject(auth, params.id) });
      return { status: 200, body: { secret: res.secret } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/deliveries',
    tag: 'Webhooks',
    summary: 'Webhook and chat deliveries, newest first, each with its attempts',
    description: 'runId or projectId names whose deliveries (both: those of that run of that project).',
    scope: 'read',
    query: pageQuery({ max: 200, default: 50 }).extend({
      runId: z.string().min(1).max(100).optional(),
      projectId: z.string().min(1).max(100).optional(),
    }),
    responses: { 200: { description: 'deliveries', schema: listOf(deliverySchema) } },
    handler: async ({ auth, query, req }) => {
      if (query.projectId) visibleProject(auth, query.projectId);
      const res = await delivery.call('listDeliveries', {
        ...caller(auth),
        projectId: query.projectId,
        runId: query.runId,
        before: query.cursor,
        take: query.limit,
      });
      return {
        status: 200,
        body: paged<DeliveryView>(
          req,
          res.deliveries.map(deliveryToRest),
          res.more,
          (d) => d.id,
          query.limit,
          publicBaseUrl,
        ),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/deliveries/:id/redeliver',
    tag: 'Webhooks',
    summary: 'Send one delivery again now, attempts kept',
    description:
      'A delivered, failed or paused delivery gets one more send; a pending one has its next attempt brought forward.',
    scope: 'write',
    params: idParam,
    responses: { 200: { description: 'the delivery, pending', schema: deliverySchema } },
    handler: async ({ auth, params }) => {
      const res = await delivery.call('redeliver', { ...caller(auth), deliveryId: params.id });
      return { status: 200, body: deliveryToRest(res.delivery) };
    },
  }),
];
