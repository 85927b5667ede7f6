import { newId, type ApiKey, type PrismaClient, type Workspace } from '@tidemark/db';

export type ApiKeyWithWorkspace = ApiKey & { workspace: Workspace };

/** The only file of the gateway that touches api_key. */
export class ApiKeyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findActiveByHash(hash: string): Promise<ApiKeyWithWorkspace | null> {
    return this.prisma.apiKey.findFirst({ where: { hash, revokedAt: null }, include: { workspace: true } });
  }

  create(data: Omit<ApiKey, 'id' | 'createdAt' | 'revokedAt' | 'lastUsedAt'>): Promise<ApiKey> {
    return this.prisma.apiKey.create({ data: { id: newId('key'), ...data } });
  }

  /** Newest first, paged by id (ids sort by creation time). */
  listActive(workspaceId: string, opts: { before?: string; take: number }): Promise<ApiKey[]> {
    return this.prisma.apiKey.findMany({
      where: { workspaceId, revokedAt: null, ...(opts.before ? { id: { lt: opts.before } } : {}) },
      orderBy: { id: 'desc' },
      take: opts.take,
    });
  }

  /** Answers false when no active key of that id exists in the workspace. */
  async revoke(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id, workspaceId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }

  async touch(id: string): Promise<void> {
    await this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: new Date() } });
  }
}
