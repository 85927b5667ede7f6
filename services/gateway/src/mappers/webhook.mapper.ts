// deliveryV1.WebhookChannel (DeliveryService.ListChannels) → GET /webhooks;
// deliveryV1.ProjectWebhooks (ProjectWebhooks) → GET /projects/{id}/webhooks;
// deliveryV1.Delivery (SendTest, ListDeliveries, Redeliver) → POST /projects/{id}/webhooks/test,
// GET /webhooks/deliveries, POST /webhooks/deliveries/{id}/redeliver.
import {
  attemptOutcomeEnum,
  channelKindEnum,
  chatServiceEnum,
  deliveryStatusEnum,
  healthStatusEnum,
  type ChannelHealth,
  type deliveryV1,
  type DeliveryView,
  type ProjectWebhooksView,
  type WebhookChannelView,
} from '@tidemark/contracts';
import { nullable, required } from './proto-values.js';

// The REST shapes are the zod schemas of libs/contracts/src/delivery.ts (deliverySchema,
// webhookChannelSchema, projectWebhooksSchema), whose types these functions answer.

const iso = (d: Date | undefined): string | null => (d === undefined ? null : d.toISOString());

const healthToRest = (message: deliveryV1.ChannelHealth | undefined): ChannelHealth => {
  const h = required(message, 'ChannelHealth');
  const recent = required(h.recent, 'ChannelHealth.recent');
  return {
    status: healthStatusEnum.fromProto(h.status),
    lastAttemptAt: iso(h.lastAttemptAt),
    lastStatus: nullable(h.lastStatus),
    lastError: nullable(h.lastError),
    recent: { delivered: recent.delivered, pending: recent.pending, failed: recent.failed, paused: recent.paused },
  };
};

export const deliveryToRest = (message: deliveryV1.Delivery | undefined): DeliveryView => {
  const d = required(message, 'Delivery');
  return {
    id: d.id,
    event: d.event,
    eventId: d.eventId,
    channel: channelKindEnum.fromProto(d.channel),
    service: d.service === undefined ? null : chatServiceEnum.fromProto(d.service),
    url: d.url,
    projectId: nullable(d.projectId),
    runId: nullable(d.runId),
    jobId: nullable(d.jobId),
    test: d.test,
    status: deliveryStatusEnum.fromProto(d.status),
    attempts: d.attempts,
    lastStatus: nullable(d.lastStatus),
    lastError: nullable(d.lastError),
    nextAt: iso(d.nextAt),
    deliveredAt: iso(d.deliveredAt),
    createdAt: required(d.createdAt, 'Delivery.created_at').toISOString(),
    log: d.log.map((a) => ({
      attempt: a.attempt,
      at: required(a.at, 'DeliveryAttempt.at').toISOString(),
      status: nullable(a.status),
      error: nullable(a.error),
      durationMs: a.durationMs,
      outcome: attemptOutcomeEnum.fromProto(a.outcome),
      manual: a.manual,
    })),
  };
};

export const webhookChannelToRest = (c: deliveryV1.WebhookChannel): WebhookChannelView => ({
  projectId: c.projectId,
  projectName: c.projectName,
  kind: channelKindEnum.fromProto(c.kind),
  service: c.service === undefined ? null : chatServiceEnum.fromProto(c.service),
  url: c.url,
  events: c.events,
  health: healthToRest(c.health),
});

/** The secret for a caller who may see it; `secretHidden: true` instead for the others. */
export const projectWebhooksToRest = (message: deliveryV1.ProjectWebhooks | undefined): ProjectWebhooksView => {
  const w = required(message, 'ProjectWebhooks');
  return {
    projectId: w.projectId,
    url: nullable(w.url),
    events: w.events,
    ...(w.secret !== undefined ? { secret: w.secret } : {}),
    ...(w.secretHidden ? { secretHidden: true as const } : {}),
    health: healthToRest(w.health),
    chat: w.chat
      ? { url: w.chat.url, service: chatServiceEnum.fromProto(w.chat.service), health: healthToRest(w.chat.health) }
      : null,
    deliveries: w.deliveries.map(deliveryToRest),
  };
};
