import { deliveryRequestSubject, type Bus } from '@tidemark/bus';
import { deliveryRequests, type DeliveryAnswers, type DeliveryRequestName } from '@tidemark/contracts';
import type { z } from 'zod';
import type { ConnectionService } from '../connections/connection.service.js';
import { PROVIDERS } from '../connections/providers.js';
import type { DigestService } from '../digest/digest.service.js';
import type { Mailer } from '../notify/mailer.js';
import type { NotificationService } from '../notify/notification.service.js';
import type { WebhookService } from '../webhooks/webhook.service.js';

type Handlers = {
  [N in DeliveryRequestName]: (req: z.output<(typeof deliveryRequests)[N]>) => Promise<DeliveryAnswers[N]>;
};

/**
 * Core NATS in (`delivery.request.<name>`, queue group `delivery`): what the gateway's webhook,
 * connection and notification routes ask, and the digest the diff service will ask for. Errors
 * travel back as ApiErrors (404, 409, 422 …).
 */
export const deliveryHandlers = (deps: {
  webhooks: WebhookService;
  connections: ConnectionService;
  digests: DigestService;
  notifications: NotificationService;
  mailer: Mailer | null;
}): Handlers => ({
  listChannels: (r) => deps.webhooks.listChannels(r, r),
  projectWebhooks: (r) => deps.webhooks.projectWebhooks(r, r.projectId, r.revealSecret),
  sendTest: async (r) => ({ deliveries: await deps.webhooks.sendTest(r, r.projectId) }),
  rotateSecret: async (r) => ({ secret: await deps.webhooks.rotateSecret(r, r.projectId) }),
  listDeliveries: (r) => deps.webhooks.listDeliveries(r, r),
  redeliver: (r) => deps.webhooks.redeliver(r, r.deliveryId),
  providers: async () => ({ data: PROVIDERS }),
  listConnections: async (r) => ({ data: await deps.connections.list(r.workspaceId) }),
  getConnection: (r) => deps.connections.get(r.workspaceId, r.connectionId),
  createConnection: (r) => deps.connections.create(r),
  updateConnection: (r) => deps.connections.update(r),
  deleteConnection: async (r) => {
    await deps.connections.delete(r.workspaceId, r.connectionId);
    return { deleted: true as const };
  },
  testConnection: (r) => deps.connections.test(r.workspaceId, r.connectionId),
  changeDigest: (r) => deps.digests.write(r),
  listNotifications: (r) => deps.notifications.list(r.workspaceId, r.userId, r),
  seenNotification: async (r) => {
    await deps.notifications.seen(r.workspaceId, r.userId, r.notificationId);
    return { seen: true as const };
  },
  mailStatus: async () => ({ mail: deps.mailer !== null }),
  // Sent once, now: the person is waiting for it and can ask again (no retry queue).
  accountMail: async (r) => ({ sent: deps.mailer ? (await deps.mailer.send(r)).answer === 'delivered' : false }),
});

export const serveDeliveryRequests = (bus: Bus, handlers: Handlers): void => {
  for (const name of Object.keys(deliveryRequests) as DeliveryRequestName[]) {
    const schema = deliveryRequests[name] as z.ZodType;
    const handler = handlers[name] as (req: unknown) => Promise<unknown>;
    bus.serve(deliveryRequestSubject(name), 'delivery', schema, handler);
  }
};
