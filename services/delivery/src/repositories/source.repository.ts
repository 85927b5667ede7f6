import { applyConfigPatch, type ResolvedConfig } from '@tidemark/contracts';
import type { PrismaClient } from '@tidemark/db';

export interface ProjectSource {
  id: string;
  workspaceId: string;
  name: string;
  host: string;
  config: ResolvedConfig;
}

export interface Recipient {
  userId: string;
  email: string;
  name: string | null;
}

/**
 * Read-only views of tables other services own: a project's config (gateway), a job's webhook
 * secret (scrape, crawl), a workspace's members (gateway). Delivery never writes them.
 */
export class SourceRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A project of the workspace; `standing` leaves out a one-shot crawl's hidden project. */
  async project(
    workspaceId: string,
    projectId: string,
    opts: { standing?: boolean } = {},
  ): Promise<ProjectSource | null> {
    const p = await this.prisma.project.findFirst({
      where: { id: projectId, workspaceId, ...(opts.standing ? { ephemeral: false } : {}) },
      select: { id: true, workspaceId: true, name: true, host: true, config: true },
    });
    // Normalized, so keys added to the schema since the project was saved read as their defaults.
    return p ? { ...p, config: applyConfigPatch(p.config as unknown as ResolvedConfig, {}) } : null;
  }

  /** Standing projects with a webhook or a chat channel, newest first, paged by id. */
  async projectsWithChannels(
    workspaceId: string,
    opts: { before?: string; take: number; only: string[] },
  ): Promise<ProjectSource[]> {
    const rows = await this.prisma.$queryRaw<{ id: string; name: string; host: string; config: unknown }[]>`
      SELECT id, name, host, config FROM project
      WHERE workspace_id = ${workspaceId} AND ephemeral = false
        AND (config -> 'output' ->> 'webhook_url' IS NOT NULL OR COALESCE(config -> 'output' ->> 'chat_url', '') <> '')
        AND (${opts.before ?? null}::text IS NULL OR id < ${opts.before ?? null}::text)
        AND (cardinality(${opts.only}::text[]) = 0 OR id = ANY(${opts.only}::text[]))
      ORDER BY id DESC
      LIMIT ${opts.take}::int`;
    return rows.map((r) => ({
      ...r,
      workspaceId,
      config: applyConfigPatch(r.config as ResolvedConfig, {}),
    }));
  }

  async runExists(workspaceId: string, runId: string): Promise<boolean> {
    return (await this.prisma.run.count({ where: { id: runId, workspaceId } })) > 0;
  }

  /** The job's webhook secret and run, as scrape or crawl stored them. */
  job(
    workspaceId: string,
    jobId: string,
  ): Promise<{ secret: string | null; runId: string | null; kind: string } | null> {
    return this.prisma.job.findFirst({
      where: { id: jobId, workspaceId },
      select: { secret: true, runId: true, kind: true },
    });
  }

  /** The members of a workspace with their e-mail addresses. */
  async recipients(workspaceId: string): Promise<Recipient[]> {
    const members = await this.prisma.member.findMany({
      where: { workspaceId },
      select: { userId: true, user: { select: { email: true, name: true } } },
      orderBy: { createdAt: 'asc' },
    });
    return members.map((m) => ({ userId: m.userId, email: m.user.email, name: m.user.name }));
  }
}
