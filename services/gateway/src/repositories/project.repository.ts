import { newId, type Prisma, type PrismaClient, type Project } from '@tidemark/db';

/** The only file of the gateway that touches project. */
export class ProjectRepository {
  constructor(private readonly prisma: PrismaClient) {}

  create(data: Omit<Prisma.ProjectUncheckedCreateInput, 'id'>): Promise<Project> {
    return this.prisma.project.create({ data: { ...data, id: newId('prj') } });
  }

  /** Several projects in one transaction, in the order given. */
  async createMany(rows: Omit<Prisma.ProjectUncheckedCreateInput, 'id'>[]): Promise<Project[]> {
    if (!rows.length) return [];
    return this.prisma.$transaction(
      rows.map((data) => this.prisma.project.create({ data: { ...data, id: newId('prj') } })),
    );
  }

  /** A standing (non-ephemeral) project of the workspace, or null. */
  find(workspaceId: string, id: string): Promise<Project | null> {
    return this.prisma.project.findFirst({ where: { id, workspaceId, ephemeral: false } });
  }

  /** Newest first, paged by id; `only` is a key's allow-list; `verdict` keeps projects with such pages. */
  list(
    workspaceId: string,
    opts: { before?: string; take: number; only?: string[]; verdict?: string },
  ): Promise<Project[]> {
    return this.prisma.project.findMany({
      where: {
        workspaceId,
        ephemeral: false,
        ...(opts.before || opts.only
          ? { id: { ...(opts.before ? { lt: opts.before } : {}), ...(opts.only ? { in: opts.only } : {}) } }
          : {}),
        ...(opts.verdict ? { runs: { some: { status: 'done', pages: { some: { verdict: opts.verdict } } } } } : {}),
      },
      orderBy: { id: 'desc' },
      take: opts.take,
    });
  }

  update(id: string, data: Prisma.ProjectUpdateInput): Promise<Project> {
    return this.prisma.project.update({ where: { id }, data });
  }

  /** Deletes the project; its runs and pages go with it (ON DELETE CASCADE). */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.project.deleteMany({ where: { id, workspaceId, ephemeral: false } });
    return count > 0;
  }

  /** Projects whose config has fetch.headers (for sealing values stored before sealing began). */
  withHeaders(): Promise<{ id: string; config: Prisma.JsonValue }[]> {
    return this.prisma.$queryRaw`
      SELECT id, config FROM project
      WHERE jsonb_typeof(config -> 'fetch' -> 'headers') = 'object' AND config -> 'fetch' -> 'headers' <> '{}'::jsonb`;
  }

  /** Replaces a config only if it is still `before` (another writer wins); answers whether it did. */
  async replaceConfig(id: string, before: Prisma.JsonValue, after: object): Promise<boolean> {
    const n = await this.prisma.$executeRaw`
      UPDATE project SET config = ${JSON.stringify(after)}::jsonb
      WHERE id = ${id} AND config = ${JSON.stringify(before)}::jsonb`;
    return n > 0;
  }

  async existingIds(workspaceId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.project.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }
}
