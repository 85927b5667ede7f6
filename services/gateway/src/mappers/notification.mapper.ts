// deliveryV1.Notification (DeliveryService.ListNotifications) → GET /me/notifications.
import { notificationKindEnum, type deliveryV1, type NotificationView } from '@tidemark/contracts';
import { nullable, required } from './proto-values.js';

// The REST shape is notificationSchema of libs/contracts/src/delivery.ts, whose type this answers.

export const notificationToRest = (n: deliveryV1.Notification): NotificationView => ({
  id: n.id,
  kind: notificationKindEnum.fromProto(n.kind),
  event: n.event,
  projectId: nullable(n.projectId),
  runId: nullable(n.runId),
  title: n.title,
  body: n.body,
  // The event's own fields, which differ by event (a google.protobuf.Struct).
  data: n.data ?? {},
  createdAt: required(n.createdAt, 'Notification.created_at').toISOString(),
});
