import { z } from 'zod';
import {
  AttemptOutcome,
  ChannelKind,
  ChatService as ChatServiceValue,
  DeliveryStatus,
  HealthStatus,
  NotificationKind,
} from './generated/tidemark/delivery/v1/delivery.js';
import { protoEnum } from './proto-enum.js';

/**
 * What the delivery service and its callers agree on: the project events it turns into webhooks,
 * chat posts, e-mail and notifications; the records the API returns (deliveries, webhooks,
 * connections, notifications) and the codecs of DeliveryService's proto enums. The calls
 * themselves are proto/tidemark/delivery/v1/delivery.proto.
 */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'paused'] as const;
export const DELIVERY_CHANNELS = ['webhook', 'chat', 'email'] as const;
/** The channels the API shows (e-mail deliveries are the run e-mail's, never listed). */
export const CHANNEL_KINDS = ['webhook', 'chat'] as const;
export const ATTEMPT_OUTCOMES = ['delivered', 'retry', 'failed', 'paused'] as const;
export const HEALTH_STATUSES = ['healthy', 'failing', 'paused', 'idle'] as const;
export const NOTIFICATION_KINDS = ['run', 'monitor'] as const;
export const CHAT_SERVICES = ['slack', 'teams', 'discord', 'mattermost', 'google_chat', 'generic'] as const;
export type ChatService = (typeof CHAT_SERVICES)[number];

/** The model-written digest of a change set (spec: Digest). */
export const digestSchema = z
  .object({
    summary: z.string(),
    points: z.array(z.string()).max(5),
    significant: z.boolean(),
  })
  .meta({ id: 'Digest' });
export type Digest = z.infer<typeof digestSchema>;

/** One changed page as a digest reads it. */
export const changeSummarySchema = z.object({
  url: z.string(),
  kind: z.enum(['added', 'removed', 'modified']),
  wordsAdded: z.number().int().min(0).default(0),
  wordsRemoved: z.number().int().min(0).default(0),
  section: z.string().nullable().default(null),
  /** A few lines of what changed, for the model to read. */
  excerpt: z.string().max(4000).optional(),
});
export type ChangeSummary = z.infer<typeof changeSummarySchema>;

/** The events a project publishes for its webhook, chat channel, e-mail and inbox. */
export const PROJECT_EVENT_KINDS = [
  'run.finished',
  'page.changed',
  'page.blocked',
  'field.canonical',
  'site.failing',
  'site.recovered',
  'page.orphaned',
  'page.linked',
  'sitemap.added',
  'sitemap.removed',
  'sitemap.updated',
  'sitemap.file_added',
  'sitemap.file_removed',
] as const;
export type ProjectEventKind = (typeof PROJECT_EVENT_KINDS)[number];

/** Every project event names its project; other fields are the event's own. */
export const projectEvent = z.looseObject({
  projectId: z.string().min(1),
  runId: z.string().nullable().optional(),
});

/**
 * run.finished. `digest` absent means "not written yet": with change_digest configured the
 * delivery service writes one from `changes` (never sent to receivers); null means none.
 */
export const runFinishedEvent = projectEvent.extend({
  runId: z.string().min(1),
  status: z.string(),
  pages: z.number().int().min(0).default(0),
  counts: z.record(z.string(), z.number()).default({}),
  coverage: z.unknown().optional(),
  stop: z.string().nullable().default(null),
  digest: digestSchema.nullable().optional(),
  test: z.boolean().optional(),
  changes: z.array(changeSummarySchema).max(500).optional(),
});
export type RunFinishedEvent = z.infer<typeof runFinishedEvent>;

export const pageChangedEvent = projectEvent.extend({
  url: z.string(),
  kind: z.enum(['added', 'removed', 'modified']),
  wordsAdded: z.number().int().min(0).default(0),
  wordsRemoved: z.number().int().min(0).default(0),
  section: z.string().nullable().default(null),
  volatile: z.boolean().default(false),
  fields: z.array(z.string()).default([]),
});

/** site.failing and site.recovered. */
export const siteHealthEvent = projectEvent.extend({
  reason: z.string().nullable().default(null),
});

// --- records the API returns --------------------------------------------------------------

export const deliveryAttemptSchema = z
  .object({
    attempt: z.number().int().describe('1 for the first send'),
    at: z.string(),
    status: z.number().int().nullable().describe('HTTP status the receiver answered; null when none'),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    manual: z.boolean().describe('sent by a redeliver'),
  })
  .meta({ id: 'DeliveryAttempt' });

export const deliverySchema = z
  .object({
    id: z.string().describe('also the X-Service-Delivery and webhook-id headers'),
    event: z.string(),
    eventId: z.string().describe('the message body’s id'),
    channel: z.enum(CHANNEL_KINDS),
    service: z.enum(CHAT_SERVICES).nullable().describe('chat channels: the chat service'),
    url: z.string().describe('the receiver (a chat URL masked)'),
    projectId: z.string().nullable(),
    runId: z.string().nullable(),
    jobId: z.string().nullable(),
    test: z.boolean(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAt: z.string().nullable().describe('when the next attempt is due; null when none is'),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    log: z.array(deliveryAttemptSchema),
  })
  .meta({ id: 'Delivery' });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const channelHealthSchema = z
  .object({
    status: z
      .enum(HEALTH_STATUSES)
      .describe('from the latest delivery: delivered, retrying or failed, paused, or none yet'),
    lastAttemptAt: z.string().nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    recent: z
      .object({
        delivered: z.number().int(),
        pending: z.number().int(),
        failed: z.number().int(),
        paused: z.number().int(),
      })
      .describe('deliveries of the last 7 days by status'),
  })
  .meta({ id: 'ChannelHealth' });
export type ChannelHealth = z.infer<typeof channelHealthSchema>;

export const webhookChannelSchema = z
  .object({
    projectId: z.string(),
    projectName: z.string(),
    kind: z.enum(CHANNEL_KINDS),
    service: z.enum(CHAT_SERVICES).nullable(),
    url: z.string().describe('a chat URL masked'),
    events: z.array(z.string()),
    health: channelHealthSchema,
  })
  .meta({ id: 'WebhookChannel' });
export type WebhookChannelView = z.infer<typeof webhookChannelSchema>;

export const projectWebhooksSchema = z
  .object({
    projectId: z.string(),
    url: z.string().nullable().describe('the config’s webhook_url'),
    events: z.array(z.string()).describe('the config’s webhook_events'),
    secret: z.string().optional().describe('the signing secret (admin keys only)'),
    secretHidden: z.literal(true).optional().describe('present instead of secret for other keys'),
    health: channelHealthSchema,
    chat: z
      .object({ url: z.string(), service: z.enum(CHAT_SERVICES), health: channelHealthSchema })
      .nullable()
      .describe('the chat channel (URL masked), or null'),
    deliveries: z.array(deliverySchema).describe('the latest 20'),
  })
  .meta({ id: 'ProjectWebhooks' });
export type ProjectWebhooksView = z.infer<typeof projectWebhooksSchema>;

export const connectionProviderSchema = z
  .object({
    provider: z.string(),
    name: z.string(),
    kind: z.string().describe('what the connection is for: llm (the change digest)'),
    fields: z.array(
      z.object({ name: z.string(), required: z.boolean(), default: z.unknown().optional(), description: z.string() }),
    ),
    secrets: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string() })),
    note: z.string(),
    verified: z.boolean().describe('tested by Tidemark against a server speaking the protocol'),
  })
  .meta({ id: 'ConnectionProvider' });

export const connectionSchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    name: z.string(),
    config: z.record(z.string(), z.unknown()),
    secrets: z.array(z.string()).describe('names of the secrets stored; their values are never returned'),
    lastTest: z
      .object({ at: z.string(), ok: z.boolean(), error: z.string().nullable() })
      .nullable()
      .describe('the latest POST /connections/{id}/test'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Connection' });
export type ConnectionView = z.infer<typeof connectionSchema>;

export const connectionTestSchema = z
  .object({
    ok: z.boolean(),
    status: z.number().int().nullable().describe('the HTTP status the endpoint answered; null when it did not'),
    error: z.string().nullable().describe('a fixed reason (never what the endpoint answered); null when ok'),
    model: z.string().nullable(),
    latencyMs: z.number().int(),
  })
  .meta({ id: 'ConnectionTest' });
export type ConnectionTestView = z.infer<typeof connectionTestSchema>;

export const notificationSchema = z
  .object({
    id: z.string(),
    kind: z.enum(NOTIFICATION_KINDS),
    event: z.string(),
    projectId: z.string().nullable(),
    runId: z.string().nullable(),
    title: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });
export type NotificationView = z.infer<typeof notificationSchema>;

// --- the proto enums of DeliveryService (proto/tidemark/delivery/v1/delivery.proto) ---------

export const deliveryStatusEnum = protoEnum(DeliveryStatus, 'DELIVERY_STATUS', DELIVERY_STATUSES);
export const channelKindEnum = protoEnum(ChannelKind, 'CHANNEL_KIND', CHANNEL_KINDS);
export const chatServiceEnum = protoEnum(ChatServiceValue, 'CHAT_SERVICE', CHAT_SERVICES);
export const attemptOutcomeEnum = protoEnum(AttemptOutcome, 'ATTEMPT_OUTCOME', ATTEMPT_OUTCOMES);
export const healthStatusEnum = protoEnum(HealthStatus, 'HEALTH_STATUS', HEALTH_STATUSES);
export const notificationKindEnum = protoEnum(NotificationKind, 'NOTIFICATION_KIND', NOTIFICATION_KINDS);
