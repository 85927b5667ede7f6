import { describe, expect, it } from '@jest/globals';
import { deliveryV1, notificationSchema } from '@tidemark/contracts';
import { notificationToRest } from '../src/mappers/notification.mapper.js';

describe('notificationToRest', () => {
  it('answers a run notification with its event’s own fields (a Struct) and a monitor one without a run', () => {
    const run: deliveryV1.Notification = {
      id: 'ntf_01JDC3',
      kind: deliveryV1.NotificationKind.NOTIFICATION_KIND_RUN,
      event: 'run.finished',
      projectId: 'prj_1',
      runId: 'run_news',
      title: 'watched.test: 2 pages changed',
      body: 'Added: 0\nRemoved: 0\nModified: 2',
      data: { counts: { added: 0, removed: 0, modified: 2, same: 2 }, stop: 'exhausted', digest: null },
      createdAt: new Date('2026-03-03T07:30:00.000Z'),
    };
    const wire = deliveryV1.Notification.decode(deliveryV1.Notification.encode(run).finish());
    const body = notificationToRest(wire);
    expect(body).toEqual({
      id: 'ntf_01JDC3',
      kind: 'run',
      event: 'run.finished',
      projectId: 'prj_1',
      runId: 'run_news',
      title: 'watched.test: 2 pages changed',
      body: 'Added: 0\nRemoved: 0\nModified: 2',
      data: { counts: { added: 0, removed: 0, modified: 2, same: 2 }, stop: 'exhausted', digest: null },
      createdAt: '2026-03-03T07:30:00.000Z',
    });
    expect(notificationSchema.parse(body)).toEqual(body);

    const monitor = notificationToRest({
      ...run,
      kind: deliveryV1.NotificationKind.NOTIFICATION_KIND_MONITOR,
      event: 'site.failing',
      runId: undefined,
      data: undefined,
    });
    expect(monitor).toMatchObject({ kind: 'monitor', runId: null, data: {} });
  });
});
