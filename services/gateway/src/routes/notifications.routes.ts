import { notificationSchema } from '@tidemark/contracts';
import { ForbiddenError } from '@tidemark/errors';
import { z } from 'zod';
import type { DeliveryClient } from '../clients/delivery.client.js';
import { errorEnvelopeSchema, idParam, listOf } from '../http/common.schemas.js';
import { encodeCursor, nextLink, pageQuery } from '../http/pagination.js';
import { defineRoute, type AuthContext } from '../http/route.js';
import { notificationToRest } from '../mappers/notification.mapper.js';

/** The signed-in member behind a request. API keys have none: a key has no inbox. */
const memberOf = (auth: AuthContext): string => {
  if (!auth.member) throw new ForbiddenError('an API key has no inbox: notifications belong to signed-in members');
  return auth.member.userId;
};

const noInbox = { description: 'an API key has no inbox (forbidden)', schema: errorEnvelopeSchema };

export const notificationRoutes = (delivery: DeliveryClient, publicBaseUrl?: string) => [
  defineRoute({
    method: 'get',
    path: '/me/notifications',
    tag: 'Workspace',
    summary: 'The signed-in member’s undismissed run and monitor notifications',
    description: 'Kept only while no mail host is configured (with one, the run e-mail goes out instead).',
    scope: 'read',
    query: pageQuery({ max: 1000, default: 100 }),
    responses: { 200: { description: 'notifications', schema: listOf(notificationSchema) }, 403: noInbox },
    handler: async ({ auth, query, req }) => {
      const res = await delivery.call('listNotifications', {
        workspaceId: auth.workspaceId,
        userId: memberOf(auth),
        before: query.cursor,
        take: query.limit,
      });
      const data = res.notifications.map(notificationToRest);
      const cursor = res.more && data.length ? encodeCursor(data[data.length - 1]!.id) : null;
      return {
        status: 200,
        body: { data, next: cursor ? nextLink(req, cursor, query.limit, publicBaseUrl) : null, cursor },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/me/notifications/:id/seen',
    tag: 'Workspace',
    summary: 'Dismiss one of your notifications',
    scope: 'read',
    params: idParam,
    responses: {
      200: { description: 'dismissed', schema: z.object({ seen: z.literal(true) }) },
      403: noInbox,
    },
    handler: async ({ auth, params }) => {
      await delivery.call('seenNotification', {
        workspaceId: auth.workspaceId,
        userId: memberOf(auth),
        notificationId: params.id,
      });
      return { status: 200, body: { seen: true } };
    },
  }),
];
