import type { MapSourceName } from '@tidemark/contracts';
import { newId, storable, type DiscoverySnapshot, type Prisma, type PrismaClient } from '@tidemark/db';
import type { MapRow } from '../jobs/map-job.service.js';

export interface FileSummary {
  file: string;
  source: MapSourceName;
  /** The first path segment most of its URLs share ("/blog"; "/" for the root). */
  section: string;
  urls: number;
  lastmod: { min: string | null; max: string | null };
}

/** The only file of map that touches discovery_snapshot, and reads a project's seed and config. */
export class SnapshotRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async project(workspaceId: string, projectId: string) {
    return this.prisma.project.findFirst({
      where: { id: projectId, workspaceId, ephemeral: false },
      select: { id: true, seed: true, config: true },
    });
  }

  async create(data: { workspaceId: string; projectId: string; jobId: string }): Promise<DiscoverySnapshot> {
    return this.prisma.discoverySnapshot.create({ data: { id: newId('dsn'), ...data } });
  }

  byJob(jobId: string): Promise<DiscoverySnapshot | null> {
    return this.prisma.discoverySnapshot.findUnique({ where: { jobId } });
  }

  /** The latest finished snapshot of a project (before `before`, when given). */
  latestDone(projectId: string, before?: Date): Promise<DiscoverySnapshot | null> {
    return this.prisma.discoverySnapshot.findFirst({
      where: {
        projectId,
        summary: { path: ['status'], equals: 'done' },
        ...(before ? { createdAt: { lt: before } } : {}),
      },
      orderBy: { createdAt: 'desc' },
    });
  }

  latest(projectId: string): Promise<DiscoverySnapshot | null> {
    return this.prisma.discoverySnapshot.findFirst({ where: { projectId }, orderBy: { createdAt: 'desc' } });
  }

  find(workspaceId: string, projectId: string, id: string): Promise<DiscoverySnapshot | null> {
    return this.prisma.discoverySnapshot.findFirst({ where: { id, workspaceId, projectId } });
  }

  async finish(id: string, summary: object, diff: object | null): Promise<void> {
    await this.prisma.discoverySnapshot.update({
      where: { id },
      data: {
        summary: storable(summary) as Prisma.InputJsonValue,
        diff: (diff ? storable(diff) : undefined) as Prisma.InputJsonValue | undefined,
      },
    });
  }

  /** Each file a map job read, with its URL count, lastmod range and dominant section. */
  async files(jobId: string): Promise<FileSummary[]> {
    const rows = await this.prisma.$queryRaw<
      { file: string; source: MapSourceName; section: string; urls: number; min: string | null; max: string | null }[]
    >`
      SELECT file, source, mode() WITHIN GROUP (ORDER BY section) AS section, count(*)::int AS urls,
             min(lastmod) AS min, max(lastmod) AS max
        FROM map_url WHERE job_id = ${jobId}
       GROUP BY file, source ORDER BY min(position)`;
    return rows.map((r) => ({
      file: r.file,
      source: r.source,
      section: r.section,
      urls: r.urls,
      lastmod: { min: r.min, max: r.max },
    }));
  }

  /** URLs one job declares and the other does not, and URLs whose lastmod changed. */
  async urlDiff(jobId: string, previousJobId: string, take: number) {
    const [added, removed, updated] = await Promise.all([
      this.prisma.$queryRaw<{ url: string; n: number }[]>`
        SELECT url, count(*) OVER ()::int AS n FROM map_url a WHERE job_id = ${jobId}
           AND NOT EXISTS (SELECT 1 FROM map_url b WHERE b.job_id = ${previousJobId} AND b.url = a.url)
         ORDER BY position LIMIT ${take}`,
      this.prisma.$queryRaw<{ url: string; n: number }[]>`
        SELECT url, count(*) OVER ()::int AS n FROM map_url b WHERE job_id = ${previousJobId}
           AND NOT EXISTS (SELECT 1 FROM map_url a WHERE a.job_id = ${jobId} AND a.url = b.url)
         ORDER BY position LIMIT ${take}`,
      this.prisma.$queryRaw<{ url: string; n: number }[]>`
        SELECT a.url, count(*) OVER ()::int AS n FROM map_url a
          JOIN map_url b ON b.job_id = ${previousJobId} AND b.url = a.url
         WHERE a.job_id = ${jobId} AND a.lastmod IS DISTINCT FROM b.lastmod
         ORDER BY a.position LIMIT ${take}`,
    ]);
    const pack = (rows: { url: string; n: number }[]) => ({ count: rows[0]?.n ?? 0, urls: rows.map((r) => r.url) });
    return { added: pack(added), removed: pack(removed), updated: pack(updated) };
  }

  /** One page of a job's rows: by file or by path prefix, matching q, from offset `cursor`. */
  async entries(jobId: string, filter: { file?: string; prefix?: string; q?: string }, cursor: number, limit: number) {
    const file = filter.file ?? null;
    const prefix = filter.prefix ? likeLiteral(filter.prefix) : null;
    const q = filter.q ? `%${likeLiteral(filter.q)}%` : null;
    return this.prisma.$queryRaw<MapRow[]>`
      SELECT url, lastmod, changefreq, source, file, section FROM map_url
       WHERE job_id = ${jobId}
         AND (${file}::text IS NULL OR file = ${file})
         AND (${prefix}::text IS NULL OR substring(url from '^[a-z]+://[^/]+(/.*)?$') LIKE ${prefix} || '%')
         AND (${q}::text IS NULL OR url ILIKE ${q})
       ORDER BY position OFFSET ${cursor} LIMIT ${limit}`;
  }

  /** The path prefixes (first two segments) under a file or prefix, with their URL counts. */
  async prefixes(jobId: string, filter: { file?: string; prefix?: string }) {
    const file = filter.file ?? null;
    const prefix = filter.prefix ? likeLiteral(filter.prefix) : null;
    return this.prisma.$queryRaw<{ prefix: string; urls: number }[]>`
      SELECT coalesce(substring(url from '^[a-z]+://[^/]+(/[^/?#]*(?:/[^/?#]*)?)'), '/') AS prefix, count(*)::int AS urls
        FROM map_url WHERE job_id = ${jobId}
         AND (${file}::text IS NULL OR file = ${file})
         AND (${prefix}::text IS NULL OR substring(url from '^[a-z]+://[^/]+(/.*)?$') LIKE ${prefix} || '%')
       GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 100`;
  }
}

/** Text a LIKE pattern reads as itself: `%`, `_` and `\` escaped (a prefix is not a pattern). */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
