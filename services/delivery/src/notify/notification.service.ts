import type { NotificationView } from '@tidemark/contracts';
import type { Notification } from '@tidemark/db';
import { NotFoundError } from '@tidemark/errors';
import type { NotificationRepository } from '../repositories/notification.repository.js';

export const presentNotification = (n: Notification): NotificationView => ({
  id: n.id,
  kind: n.kind as NotificationView['kind'],
  event: n.event,
  projectId: n.projectId,
  runId: n.runId,
  title: n.title,
  body: n.body,
  data: n.data as Record<string, unknown>,
  createdAt: n.createdAt.toISOString(),
});

/**
 * A member's inbox: undismissed run and monitor notifications, kept only while no mail host is
 * configured (with one, the run e-mail goes out instead and the inbox is empty).
 */
export class NotificationService {
  constructor(
    private readonly repo: NotificationRepository,
    private readonly mailConfigured: boolean,
  ) {}

  async list(
    workspaceId: string,
    userId: string,
    opts: { before?: string; take: number },
  ): Promise<{ data: NotificationView[]; more: boolean; mail: boolean }> {
    if (this.mailConfigured) return { data: [], more: false, mail: true };
    const rows = await this.repo.listUnseen(workspaceId, userId, { before: opts.before, take: opts.take + 1 });
    return { data: rows.slice(0, opts.take).map(presentNotification), more: rows.length > opts.take, mail: false };
  }

  /** Dismisses one; another member's (or another workspace's) answers 404. */
  async seen(workspaceId: string, userId: string, id: string): Promise<void> {
    if (!(await this.repo.markSeen(workspaceId, userId, id))) throw new NotFoundError('notification');
  }
}
