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

  /**
   * Newest first, paged by id (ids sort by creation time). `within`: only keys whose allow-list
   * is a non-empty part of it (what a key limited to those projects may see).
   */
  async listActive(workspaceId: string, opts: { before?: string; take: number; within?: string[] }): Promise<ApiKey[]> {
    const ids = opts.within ? await this.idsWithin(workspaceId, opts.within) : undefined;
    return this.prisma.apiKey.findMany({
      where: {
        workspaceId,
        revokedAt: null,
        ...(opts.before || ids
          ? { id: { ...(opts.before ? { lt: opts.before } : {}), ...(ids ? { in: ids } : {}) } }
          : {}),
      },
      orderBy: { id: 'desc' },
      take: opts.take,
    });
  }

  /** Answers false when no active key of that id exists in the workspace (or `within` it, as above). */
  async revoke(workspaceId: string, id: string, within?: string[]): Promise<boolean> {
    if (within && !(await this.idsWithin(workspaceId, within)).includes(id)) return false;
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id, workspaceId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }

  /** Active keys whose allow-list is non-empty and contained in `projects` (Prisma has no `<@`). */
  private async idsWithin(workspaceId: string, projects: string[]): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM api_key
      WHERE workspace_id = ${workspaceId} AND revoked_at IS NULL
        AND cardinality(projects) > 0 AND projects <@ ${projects}::text[]`;
    return rows.map((r) => r.id);
  }

  async touch(id: string): Promise<void> {
    await this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: new Date() } });
  }
}
