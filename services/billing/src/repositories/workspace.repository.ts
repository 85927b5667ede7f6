import type { PrismaClient } from '@tidemark/db';

/** Billing reads the workspace's plan; the gateway owns the row. */
export class WorkspaceReadRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async plan(workspaceId: string): Promise<string | null> {
    const ws = await this.prisma.workspace.findUnique({ where: { id: workspaceId }, select: { plan: true } });
    return ws?.plan ?? null;
  }
}
