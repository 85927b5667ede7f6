import type { PrismaClient, Webhook } from '@tidemark/db';

/** The only file of delivery that touches webhook (a project webhook's sealed secret). */
export class WebhookRepository {
  constructor(private readonly prisma: PrismaClient) {}

  find(projectId: string): Promise<Webhook | null> {
    return this.prisma.webhook.findUnique({ where: { projectId } });
  }

  /** The project's row, made with `sealed` if it has none; two concurrent first reads agree on one. */
  async findOrCreate(workspaceId: string, projectId: string, sealed: string): Promise<Webhook> {
    await this.prisma.webhook.createMany({ data: [{ projectId, workspaceId, secret: sealed }], skipDuplicates: true });
    return (await this.find(projectId))!;
  }

  /** Replaces the secret (made if absent). */
  rotate(workspaceId: string, projectId: string, sealed: string): Promise<Webhook> {
    return this.prisma.webhook.upsert({
      where: { projectId },
      create: { projectId, workspaceId, secret: sealed, rotatedAt: new Date() },
      update: { secret: sealed, rotatedAt: new Date() },
    });
  }
}
