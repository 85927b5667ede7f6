import { newId, type Connection, type Prisma, type PrismaClient } from '@tidemark/db';

/** The only file of delivery that touches connection and token_usage. */
export class ConnectionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  create(data: { workspaceId: string; provider: string; name: string; config: object; secrets: string }) {
    return this.prisma.connection.create({ data: { ...data, id: newId('con') } });
  }

  find(workspaceId: string, id: string): Promise<Connection | null> {
    return this.prisma.connection.findFirst({ where: { id, workspaceId } });
  }

  list(workspaceId: string): Promise<Connection[]> {
    return this.prisma.connection.findMany({ where: { workspaceId }, orderBy: { id: 'desc' }, take: 1000 });
  }

  update(id: string, data: Prisma.ConnectionUpdateInput): Promise<Connection> {
    return this.prisma.connection.update({ where: { id }, data });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.connection.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }

  async recordTest(id: string, ok: boolean, error: string | null): Promise<void> {
    await this.prisma.connection.update({
      where: { id },
      data: { lastTestAt: new Date(), lastTestOk: ok, lastTestError: error },
    });
  }

  async recordTokens(data: Omit<Prisma.TokenUsageCreateManyInput, 'id' | 'createdAt'>): Promise<void> {
    await this.prisma.tokenUsage.create({ data: { ...data, id: newId('tok') } });
  }

  /** Tokens a workspace spent since `since`. */
  async tokensSince(workspaceId: string, since: Date): Promise<{ promptTokens: number; completionTokens: number }> {
    const sum = await this.prisma.tokenUsage.aggregate({
      where: { workspaceId, createdAt: { gte: since } },
      _sum: { promptTokens: true, completionTokens: true },
    });
    return { promptTokens: sum._sum.promptTokens ?? 0, completionTokens: sum._sum.completionTokens ?? 0 };
  }
}
