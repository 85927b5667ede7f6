import { newId, type Prisma, type PrismaClient, type Workspace } from '@tidemark/db';

/** What a request carries of its workspace (the auth context's `workspace`). */
export const workspaceSummary = (ws: Workspace) => ({
  id: ws.id,
  name: ws.name,
  plan: ws.plan,
  maxRpm: ws.maxRpm,
  requireMfa: ws.requireMfa,
  createdAt: ws.createdAt,
});

/** Workspaces and their first key (users, members, sessions, invites: accounts/). */
export class WorkspaceRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A workspace and its first key, together or not at all. */
  createWithKey(name: string, key: Omit<Prisma.ApiKeyUncheckedCreateInput, 'id' | 'workspaceId'>): Promise<Workspace> {
    const id = newId('ws');
    return this.prisma.$transaction(async (tx) => {
      const ws = await tx.workspace.create({ data: { id, name } });
      await tx.apiKey.create({ data: { ...key, id: newId('key'), workspaceId: id } });
      return ws;
    });
  }

  find(id: string): Promise<Workspace | null> {
    return this.prisma.workspace.findUnique({ where: { id } });
  }

  findByName(name: string): Promise<Workspace | null> {
    return this.prisma.workspace.findFirst({ where: { name }, orderBy: { id: 'asc' } });
  }

  update(id: string, data: { maxRpm?: number | null; name?: string; requireMfa?: boolean }): Promise<Workspace> {
    return this.prisma.workspace.update({ where: { id }, data });
  }
}
