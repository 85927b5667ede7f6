import { newId, storable, type Job, type Prisma, type PrismaClient } from '@tidemark/db';

const KIND = 'map';

/** The only file of map that touches `job` (kind map). */
export class MapJobRepository {
  constructor(private readonly prisma: PrismaClient) {}

  create(data: { workspaceId: string; request: object; requestId: string | null }): Promise<Job> {
    return this.prisma.job.create({
      data: {
        id: newId('job'),
        workspaceId: data.workspaceId,
        kind: KIND,
        status: 'queued',
        progress: { done: 0, total: 0, queued: 0 },
        request: data.request as Prisma.InputJsonValue,
        requestId: data.requestId,
      },
    });
  }

  find(workspaceId: string, id: string): Promise<Job | null> {
    return this.prisma.job.findFirst({ where: { id, workspaceId, kind: KIND } });
  }

  findById(id: string): Promise<Job | null> {
    return this.prisma.job.findFirst({ where: { id, kind: KIND } });
  }

  /** Takes a queued (or, on redelivery, running) job; false when it has already ended. */
  async take(id: string): Promise<boolean> {
    const { count } = await this.prisma.job.updateMany({
      where: { id, kind: KIND, status: { in: ['queued', 'running'] } },
      data: { status: 'running', progress: { done: 0, total: 0, queued: 0 }, creditsUsed: 0 },
    });
    return count > 0;
  }

  async progress(id: string, progress: object, result: object): Promise<void> {
    await this.prisma.job.updateMany({
      where: { id, status: 'running' },
      data: { progress: progress as Prisma.InputJsonValue, result: storable(result) as Prisma.InputJsonValue },
    });
  }

  /** Ends a running job; false when it was not running (another delivery ended it). */
  async finish(
    id: string,
    data: {
      status: 'done' | 'error';
      stop: string;
      creditsUsed: number;
      counts: Record<string, number>;
      progress: object;
      result: object;
      error: { code: string; message: string } | null;
    },
  ): Promise<boolean> {
    const { count } = await this.prisma.job.updateMany({
      where: { id, status: 'running' },
      data: {
        status: data.status,
        stop: data.stop,
        creditsUsed: data.creditsUsed,
        counts: data.counts,
        progress: data.progress as Prisma.InputJsonValue,
        // A result's errors quote what sites answered: cleaned like every web-taken string.
        result: storable(data.result) as Prisma.InputJsonValue,
        ...(data.error ? { error: storable(data.error) } : {}),
      },
    });
    return count > 0;
  }

  /**
   * The watchdog's step: map jobs still open whose row has not moved for `stallMs` end as errors
   * with `reason`, in one statement. Rows are taken FOR UPDATE SKIP LOCKED and must still be open,
   * so of two watchdogs only one ends a job. Answers the jobs ended.
   */
  async failStalled(stallMs: number, reason: string, take = 50): Promise<Job[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE job SET status = 'error', stop = 'error', error = jsonb_build_object('message', ${reason}::text),
             progress = jsonb_build_object('done', 0, 'total', 0, 'queued', 0),
             updated_at = (now() AT TIME ZONE 'utc')
       WHERE id IN (
         SELECT id FROM job
          WHERE kind = ${KIND} AND status IN ('queued', 'running')
            AND updated_at < (now() AT TIME ZONE 'utc') - make_interval(secs => ${stallMs}::float8 / 1000)
          ORDER BY updated_at LIMIT ${take}::int
          FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    if (!rows.length) return [];
    return this.prisma.job.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  }
}
