import type { PrismaClient, Run } from '@tidemark/db';
import { decodeBodies } from '@tidemark/page-store';

/**
 * Reads scrape's page rows and the run table, never writes them (docs/architecture.md, Pages
 * of a run): a dead end needs the stored links of every read page of a run, and moving them
 * through the scrape service would carry each body across twice.
 */
export class StoredPagesRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The project's latest run that ended done (the default run of the pages routes). A re-crawl
   * run read only the URLs it was given: it never stands in for the site.
   */
  latestFinishedRun(workspaceId: string, projectId: string): Promise<Run | null> {
    return this.prisma.run.findFirst({
      where: { workspaceId, projectId, status: 'done', trigger: { not: 'recrawl' } },
      orderBy: { id: 'desc' },
    });
  }

  /** The stored links of a job's rows by position; null for a row that kept none. */
  async linksAt(jobId: string, positions: number[]): Promise<Map<number, string[] | null>> {
    const rows = await this.prisma.$queryRaw<{ position: number; bodies: Uint8Array | null }[]>`
      SELECT position, bodies FROM page WHERE job_id = ${jobId} AND position = ANY(${positions}::int[])`;
    const out = new Map<number, string[] | null>();
    for (const r of rows) {
      const links = decodeBodies(r.bodies).links;
      out.set(r.position, links ?? null);
    }
    return out;
  }
}
