import {
  attemptOutcomeEnum,
  changeKindEnum,
  channelKindEnum,
  chatServiceEnum,
  deliveryStatusEnum,
  healthStatusEnum,
  notificationKindEnum,
  type ChangeSummary,
  type ChannelHealth,
  type ConnectionView,
  type deliveryV1,
  type DeliveryView,
  type NotificationView,
  type ProjectWebhooksView,
  type WebhookChannelView,
} from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { ConnectionService } from '../connections/connection.service.js';
import { PROVIDERS, type Provider } from '../connections/providers.js';
import type { DigestService } from '../digest/digest.service.js';
import type { Mailer } from '../notify/mailer.js';
import type { NotificationService } from '../notify/notification.service.js';
import type { WebhookService } from '../webhooks/webhook.service.js';

// Bounds of what a caller may ask (the gateway checks its own first; other callers may not).
const MAX_CHANNELS_PAGE = 1000;
const MAX_DELIVERIES_PAGE = 200;
const MAX_NOTIFICATIONS_PAGE = 1000;
const MAX_SECRET_CHARS = 10_000;
const MAX_FOCUS_CHARS = 2000;
const MAX_DIGEST_CHANGES = 500;
const MAX_EXCERPT_CHARS = 4000;
const MAX_SUBJECT_CHARS = 200;
const MAX_MAIL_CHARS = 20_000;

/** null → absent (proto3 optional): the gateway's mappers turn absent back into null. */
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;
const instant = (iso: string | null): Date | undefined => (iso === null ? undefined : new Date(iso));

const pageSize = (take: number, max: number, field = 'take'): number => {
  if (!Number.isInteger(take) || take < 1 || take > max) throw new ValidationError(`${field}: 1 to ${max}`);
  return take;
};

const healthMessage = (h: ChannelHealth): deliveryV1.ChannelHealth => ({
  status: healthStatusEnum.toProto(h.status),
  lastAttemptAt: instant(h.lastAttemptAt),
  lastStatus: opt(h.lastStatus),
  lastError: opt(h.lastError),
  recent: h.recent,
});

export const deliveryMessage = (d: DeliveryView): deliveryV1.Delivery => ({
  id: d.id,
  event: d.event,
  eventId: d.eventId,
  channel: channelKindEnum.toProto(d.channel),
  service: d.service === null ? undefined : chatServiceEnum.toProto(d.service),
  url: d.url,
  projectId: opt(d.projectId),
  runId: opt(d.runId),
  jobId: opt(d.jobId),
  test: d.test,
  status: deliveryStatusEnum.toProto(d.status),
  attempts: d.attempts,
  lastStatus: opt(d.lastStatus),
  lastError: opt(d.lastError),
  nextAt: instant(d.nextAt),
  deliveredAt: instant(d.deliveredAt),
  createdAt: new Date(d.createdAt),
  log: d.log.map((a) => ({
    attempt: a.attempt,
    at: new Date(a.at),
    status: opt(a.status),
    error: opt(a.error),
    durationMs: a.durationMs,
    outcome: attemptOutcomeEnum.toProto(a.outcome),
    manual: a.manual,
  })),
});

const channelMessage = (c: WebhookChannelView): deliveryV1.WebhookChannel => ({
  projectId: c.projectId,
  projectName: c.projectName,
  kind: channelKindEnum.toProto(c.kind),
  service: c.service === null ? undefined : chatServiceEnum.toProto(c.service),
  url: c.url,
  events: c.events,
  health: healthMessage(c.health),
});

const projectWebhooksMessage = (w: ProjectWebhooksView): deliveryV1.ProjectWebhooks => ({
  projectId: w.projectId,
  url: opt(w.url),
  events: w.events,
  secret: w.secret,
  secretHidden: w.secretHidden === true,
  health: healthMessage(w.health),
  chat: w.chat
    ? { url: w.chat.url, service: chatServiceEnum.toProto(w.chat.service), health: healthMessage(w.chat.health) }
    : undefined,
  deliveries: w.deliveries.map(deliveryMessage),
});

const providerMessage = (p: Provider): deliveryV1.ConnectionProvider => ({
  provider: p.provider,
  name: p.name,
  kind: p.kind,
  fields: p.fields.map((f) => ({
    name: f.name,
    required: f.required,
    default: f.default,
    description: f.description,
  })),
  secrets: p.secrets,
  note: p.note,
  verified: p.verified,
});

export const connectionMessage = (c: ConnectionView): deliveryV1.Connection => ({
  id: c.id,
  provider: c.provider,
  name: c.name,
  config: c.config,
  secrets: c.secrets,
  lastTest: c.lastTest ? { at: new Date(c.lastTest.at), ok: c.lastTest.ok, error: opt(c.lastTest.error) } : undefined,
  createdAt: new Date(c.createdAt),
  updatedAt: new Date(c.updatedAt),
});

const notificationMessage = (n: NotificationView): deliveryV1.Notification => ({
  id: n.id,
  kind: notificationKindEnum.toProto(n.kind),
  event: n.event,
  projectId: opt(n.projectId),
  runId: opt(n.runId),
  title: n.title,
  body: n.body,
  data: n.data,
  createdAt: new Date(n.createdAt),
});

const secretsOf = (secrets: Record<string, string>): Record<string, string> => {
  for (const [name, value] of Object.entries(secrets))
    if (value.length > MAX_SECRET_CHARS)
      throw new ValidationError(`body.secrets.${name}: at most ${MAX_SECRET_CHARS} characters`);
  return secrets;
};

const changeSummaryOf = (c: deliveryV1.ChangeSummary, i: number): ChangeSummary => {
  const kind = changeKindEnum.fromProto(c.kind);
  if (kind !== 'added' && kind !== 'removed' && kind !== 'modified')
    throw new ValidationError(`changes[${i}].kind: added, removed or modified`);
  return {
    url: c.url,
    kind,
    wordsAdded: Math.max(0, c.wordsAdded),
    wordsRemoved: Math.max(0, c.wordsRemoved),
    section: c.section ?? null,
    ...(c.excerpt !== undefined ? { excerpt: c.excerpt.slice(0, MAX_EXCERPT_CHARS) } : {}),
  };
};

const checkMail = (m: deliveryV1.AccountMailRequest) => {
  // An address as the gateway checked it: one @, no spaces, a dot in the domain.
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(m.to)) throw new ValidationError('to: an e-mail address');
  if (!m.subject || m.subject.length > MAX_SUBJECT_CHARS)
    throw new ValidationError(`subject: 1 to ${MAX_SUBJECT_CHARS} characters`);
  if (!m.text || m.text.length > MAX_MAIL_CHARS) throw new ValidationError(`text: 1 to ${MAX_MAIL_CHARS} characters`);
  return { to: m.to, subject: m.subject, text: m.text };
};

/**
 * gRPC in (`DeliveryService`): what the gateway's webhook, connection and notification routes
 * and its account mail ask. Decode → service → the typed answer; errors travel back as the same
 * ApiErrors (404, 409, 422 …).
 */
export const deliveryRpc = (deps: {
  webhooks: WebhookService;
  connections: ConnectionService;
  digests: DigestService;
  notifications: NotificationService;
  mailer: Mailer | null;
}) => ({
  listChannels: async (r: deliveryV1.ListChannelsRequest) => {
    const page = await deps.webhooks.listChannels(r, { before: r.before, take: pageSize(r.take, MAX_CHANNELS_PAGE) });
    return { channels: page.data.map(channelMessage), more: page.more } satisfies deliveryV1.ListChannelsResponse;
  },
  projectWebhooks: async (r: deliveryV1.ProjectWebhooksRequest) =>
    ({
      webhooks: projectWebhooksMessage(await deps.webhooks.projectWebhooks(r, r.projectId, r.revealSecret)),
    }) satisfies deliveryV1.ProjectWebhooksResponse,
  sendTest: async (r: deliveryV1.SendTestRequest) =>
    ({
      deliveries: (await deps.webhooks.sendTest(r, r.projectId)).map(deliveryMessage),
    }) satisfies deliveryV1.SendTestResponse,
  rotateSecret: async (r: deliveryV1.RotateSecretRequest) =>
    ({ secret: await deps.webhooks.rotateSecret(r, r.projectId) }) satisfies deliveryV1.RotateSecretResponse,
  listDeliveries: async (r: deliveryV1.ListDeliveriesRequest) => {
    const page = await deps.webhooks.listDeliveries(r, {
      projectId: r.projectId,
      runId: r.runId,
      before: r.before,
      take: pageSize(r.take, MAX_DELIVERIES_PAGE),
    });
    return { deliveries: page.data.map(deliveryMessage), more: page.more } satisfies deliveryV1.ListDeliveriesResponse;
  },
  redeliver: async (r: deliveryV1.RedeliverRequest) =>
    ({
      delivery: deliveryMessage(await deps.webhooks.redeliver(r, r.deliveryId)),
    }) satisfies deliveryV1.RedeliverResponse,
  providers: async () => ({ providers: PROVIDERS.map(providerMessage) }) satisfies deliveryV1.ProvidersResponse,
  listConnections: async (r: deliveryV1.ListConnectionsRequest) =>
    ({
      connections: (await deps.connections.list(r.workspaceId)).map(connectionMessage),
    }) satisfies deliveryV1.ListConnectionsResponse,
  getConnection: async (r: deliveryV1.GetConnectionRequest) =>
    ({
      connection: connectionMessage(await deps.connections.get(r.workspaceId, r.connectionId)),
    }) satisfies deliveryV1.GetConnectionResponse,
  createConnection: async (r: deliveryV1.CreateConnectionRequest) =>
    ({
      connection: connectionMessage(
        await deps.connections.create({
          workspaceId: r.workspaceId,
          provider: r.provider,
          name: r.name,
          config: r.config ?? {},
          secrets: secretsOf(r.secrets),
        }),
      ),
    }) satisfies deliveryV1.CreateConnectionResponse,
  updateConnection: async (r: deliveryV1.UpdateConnectionRequest) =>
    ({
      connection: connectionMessage(
        await deps.connections.update({
          workspaceId: r.workspaceId,
          connectionId: r.connectionId,
          name: r.name,
          config: r.config,
          // No secret given: none changes (an empty map is what proto sends for "none").
          secrets: Object.keys(r.secrets).length ? secretsOf(r.secrets) : undefined,
        }),
      ),
    }) satisfies deliveryV1.UpdateConnectionResponse,
  deleteConnection: async (r: deliveryV1.DeleteConnectionRequest) => {
    await deps.connections.delete(r.workspaceId, r.connectionId);
    return {} satisfies deliveryV1.DeleteConnectionResponse;
  },
  testConnection: async (r: deliveryV1.TestConnectionRequest) => {
    const t = await deps.connections.test(r.workspaceId, r.connectionId);
    return {
      test: { ok: t.ok, status: opt(t.status), error: opt(t.error), model: opt(t.model), latencyMs: t.latencyMs },
    } satisfies deliveryV1.TestConnectionResponse;
  },
  changeDigest: async (r: deliveryV1.ChangeDigestRequest) => {
    if (r.focus.length > MAX_FOCUS_CHARS) throw new ValidationError(`focus: at most ${MAX_FOCUS_CHARS} characters`);
    if (r.changes.length > MAX_DIGEST_CHANGES) throw new ValidationError(`changes: at most ${MAX_DIGEST_CHANGES}`);
    const { digest, usage } = await deps.digests.write({
      workspaceId: r.workspaceId,
      connectionId: r.connectionId,
      focus: r.focus,
      projectId: r.projectId ?? null,
      runId: r.runId ?? null,
      counts: r.counts,
      changes: r.changes.map(changeSummaryOf),
    });
    return { digest: opt(digest), usage: opt(usage) } satisfies deliveryV1.ChangeDigestResponse;
  },
  listNotifications: async (r: deliveryV1.ListNotificationsRequest) => {
    const page = await deps.notifications.list(r.workspaceId, r.userId, {
      before: r.before,
      take: pageSize(r.take, MAX_NOTIFICATIONS_PAGE),
    });
    return {
      notifications: page.data.map(notificationMessage),
      more: page.more,
      mail: page.mail,
    } satisfies deliveryV1.ListNotificationsResponse;
  },
  seenNotification: async (r: deliveryV1.SeenNotificationRequest) => {
    await deps.notifications.seen(r.workspaceId, r.userId, r.notificationId);
    return {} satisfies deliveryV1.SeenNotificationResponse;
  },
  mailStatus: async () => ({ mail: deps.mailer !== null }) satisfies deliveryV1.MailStatusResponse,
  // Sent once, now: the person is waiting for it and can ask again (no retry queue).
  accountMail: async (r: deliveryV1.AccountMailRequest) => {
    const mail = checkMail(r);
    return {
      sent: deps.mailer ? (await deps.mailer.send(mail)).answer === 'delivered' : false,
    } satisfies deliveryV1.AccountMailResponse;
  },
});
