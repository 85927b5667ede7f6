import { newId, storable, type Notification, type Prisma, type PrismaClient } from '@tidemark/db';

export type NewNotification = Omit<Prisma.NotificationCreateManyInput, 'id' | 'createdAt' | 'seenAt'>;

/** The only file of delivery that touches notification. */
export class NotificationRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One per member and event; an event handled twice adds nothing. */
  async add(rows: NewNotification[]): Promise<number> {
    if (rows.length === 0) return 0;
    const { count } = await this.prisma.notification.createMany({
      data: storable(rows).map((r) => ({ ...r, id: newId('ntf') })),
      skipDuplicates: true,
    });
    return count;
  }

  /** A member's undismissed notifications, newest first, paged by id. */
  listUnseen(workspaceId: string, userId: string, opts: { before?: string; take: number }): Promise<Notification[]> {
    return this.prisma.notification.findMany({
      where: { workspaceId, userId, seenAt: null, ...(opts.before ? { id: { lt: opts.before } } : {}) },
      orderBy: { id: 'desc' },
      take: opts.take,
    });
  }

  /** Dismisses one of the member's own; false when it is not theirs (or not there). */
  async markSeen(workspaceId: string, userId: string, id: string): Promise<boolean> {
    const found = await this.prisma.notification.findFirst({
      where: { id, workspaceId, userId },
      select: { id: true },
    });
    if (!found) return false;
    await this.prisma.notification.updateMany({ where: { id, seenAt: null }, data: { seenAt: new Date() } });
    return true;
  }
}
