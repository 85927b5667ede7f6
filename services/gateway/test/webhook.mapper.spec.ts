import { describe, expect, it } from '@jest/globals';
import { deliverySchema, deliveryV1, projectWebhooksSchema, webhookChannelSchema } from '@tidemark/contracts';
import { deliveryToRest, projectWebhooksToRest, webhookChannelToRest } from '../src/mappers/webhook.mapper.js';

const wire = <T>(codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, m: T): T =>
  codec.decode(codec.encode(m).finish());

const S = deliveryV1.DeliveryStatus;
const O = deliveryV1.AttemptOutcome;

/** A webhook that failed twice (a 503, then no answer) and is due again in five minutes. */
const retrying: deliveryV1.Delivery = {
  id: 'dlv_01JDA1',
  event: 'run.finished',
  eventId: 'evt_01JDA0',
  channel: deliveryV1.ChannelKind.CHANNEL_KIND_WEBHOOK,
  service: undefined,
  url: 'https://hooks.example.com/tidemark',
  projectId: 'prj_1',
  runId: 'run_7',
  jobId: undefined,
  test: false,
  status: S.DELIVERY_STATUS_PENDING,
  attempts: 2,
  lastStatus: undefined,
  lastError: 'no answer within 10000 ms',
  nextAt: new Date('2026-03-01T10:06:00.000Z'),
  deliveredAt: undefined,
  createdAt: new Date('2026-03-01T10:00:00.000Z'),
  log: [
    {
      attempt: 1,
      at: new Date('2026-03-01T10:00:00.120Z'),
      status: 503,
      error: undefined,
      durationMs: 84,
      outcome: O.ATTEMPT_OUTCOME_RETRY,
      manual: false,
    },
    {
      attempt: 2,
      at: new Date('2026-03-01T10:01:00.300Z'),
      status: undefined,
      error: 'no answer within 10000 ms',
      durationMs: 10002,
      outcome: O.ATTEMPT_OUTCOME_RETRY,
      manual: false,
    },
  ],
};

const health: deliveryV1.ChannelHealth = {
  status: deliveryV1.HealthStatus.HEALTH_STATUS_FAILING,
  lastAttemptAt: new Date('2026-03-01T10:01:00.300Z'),
  lastStatus: undefined,
  lastError: 'no answer within 10000 ms',
  recent: { delivered: 12, pending: 1, failed: 0, paused: 0 },
};

describe('deliveryToRest', () => {
  it('answers a delivery with its attempts, nulls where the message left a field out', () => {
    const body = deliveryToRest(wire(deliveryV1.Delivery, retrying));
    expect(body).toEqual({
      id: 'dlv_01JDA1',
      event: 'run.finished',
      eventId: 'evt_01JDA0',
      channel: 'webhook',
      service: null,
      url: 'https://hooks.example.com/tidemark',
      projectId: 'prj_1',
      runId: 'run_7',
      jobId: null,
      test: false,
      status: 'pending',
      attempts: 2,
      lastStatus: null,
      lastError: 'no answer within 10000 ms',
      nextAt: '2026-03-01T10:06:00.000Z',
      deliveredAt: null,
      createdAt: '2026-03-01T10:00:00.000Z',
      log: [
        {
          attempt: 1,
          at: '2026-03-01T10:00:00.120Z',
          status: 503,
          error: null,
          durationMs: 84,
          outcome: 'retry',
          manual: false,
        },
        {
          attempt: 2,
          at: '2026-03-01T10:01:00.300Z',
          status: null,
          error: 'no answer within 10000 ms',
          durationMs: 10002,
          outcome: 'retry',
          manual: false,
        },
      ],
    });
    expect(deliverySchema.parse(body)).toEqual(body);
  });

  it('answers a chat post delivered on a redeliver', () => {
    const chat = deliveryToRest({
      ...retrying,
      channel: deliveryV1.ChannelKind.CHANNEL_KIND_CHAT,
      service: deliveryV1.ChatService.CHAT_SERVICE_GOOGLE_CHAT,
      url: 'https://chat.googleapis.com/v1/spaces/AAAA/messages?key=****',
      status: S.DELIVERY_STATUS_DELIVERED,
      nextAt: undefined,
      deliveredAt: new Date('2026-03-01T11:00:00.000Z'),
      log: [{ ...retrying.log[0]!, status: 200, outcome: O.ATTEMPT_OUTCOME_DELIVERED, manual: true }],
    });
    expect(chat).toMatchObject({
      channel: 'chat',
      service: 'google_chat',
      status: 'delivered',
      nextAt: null,
      deliveredAt: '2026-03-01T11:00:00.000Z',
      log: [{ outcome: 'delivered', manual: true, status: 200 }],
    });
  });
});

describe('webhookChannelToRest and projectWebhooksToRest', () => {
  it('answers a channel with its health', () => {
    const body = webhookChannelToRest(
      wire(deliveryV1.WebhookChannel, {
        projectId: 'prj_1',
        projectName: 'Harbour',
        kind: deliveryV1.ChannelKind.CHANNEL_KIND_WEBHOOK,
        service: undefined,
        url: 'https://hooks.example.com/tidemark',
        events: ['run.finished', 'page.changed'],
        health,
      }),
    );
    expect(body).toEqual({
      projectId: 'prj_1',
      projectName: 'Harbour',
      kind: 'webhook',
      service: null,
      url: 'https://hooks.example.com/tidemark',
      events: ['run.finished', 'page.changed'],
      health: {
        status: 'failing',
        lastAttemptAt: '2026-03-01T10:01:00.300Z',
        lastStatus: null,
        lastError: 'no answer within 10000 ms',
        recent: { delivered: 12, pending: 1, failed: 0, paused: 0 },
      },
    });
    expect(webhookChannelSchema.parse(body)).toEqual(body);
  });

  const webhooks: deliveryV1.ProjectWebhooks = {
    projectId: 'prj_1',
    url: 'https://hooks.example.com/tidemark',
    events: ['run.finished'],
    secret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTI0Ynl0ZXM=',
    secretHidden: false,
    health,
    chat: {
      url: 'https://hooks.slack.com/services/T000/B000/****',
      service: deliveryV1.ChatService.CHAT_SERVICE_SLACK,
      health: { ...health, status: deliveryV1.HealthStatus.HEALTH_STATUS_IDLE, lastAttemptAt: undefined },
    },
    deliveries: [retrying],
  };

  it('answers the secret to a caller who may see it, and secretHidden to the others', () => {
    const admin = projectWebhooksToRest(wire(deliveryV1.ProjectWebhooks, webhooks));
    expect(admin).toMatchObject({
      secret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTI0Ynl0ZXM=',
      chat: { service: 'slack', health: { status: 'idle', lastAttemptAt: null } },
      deliveries: [{ id: 'dlv_01JDA1' }],
    });
    expect(admin).not.toHaveProperty('secretHidden');
    expect(projectWebhooksSchema.parse(admin)).toEqual(admin);

    const reader = projectWebhooksToRest(
      wire(deliveryV1.ProjectWebhooks, { ...webhooks, secret: undefined, secretHidden: true, chat: undefined }),
    );
    expect(reader).toMatchObject({ secretHidden: true, chat: null });
    expect(reader).not.toHaveProperty('secret');
    expect(projectWebhooksSchema.parse(reader)).toEqual(reader);
  });

  it('answers a project without a webhook_url as url null', () => {
    expect(projectWebhooksToRest({ ...webhooks, url: undefined, events: [] })).toMatchObject({ url: null, events: [] });
  });
});
