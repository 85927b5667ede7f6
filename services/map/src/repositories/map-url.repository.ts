import { storable, type MapUrl, type PrismaClient } from '@tidemark/db';

export type MapUrlRow = Omit<MapUrl, 'jobId'>;

/** The only file of map that touches `map_url`: the rows of a map job, by position. */
export class MapUrlRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A redelivered job starts over: rows of the earlier attempt go. */
  async clear(jobId: string): Promise<void> {
    await this.prisma.mapUrl.deleteMany({ where: { jobId } });
  }

  async append(jobId: string, rows: MapUrlRow[]): Promise<void> {
    if (rows.length === 0) return;
    // Sitemaps and feeds are the site's: what PostgreSQL cannot hold is cleaned first.
    await this.prisma.mapUrl.createMany({ data: storable(rows).map((r) => ({ jobId, ...r })), skipDuplicates: true });
  }

  /** Rows from position `after` on, in order. */
  list(jobId: string, after: number, take: number): Promise<MapUrl[]> {
    return this.prisma.mapUrl.findMany({
      where: { jobId, position: { gte: after } },
      orderBy: { position: 'asc' },
      take,
    });
  }
}
