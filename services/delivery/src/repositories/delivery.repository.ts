import { newId, Prisma, storable, type Delivery, type DeliveryAttempt, type PrismaClient } from '@tidemark/db';
import type { AttemptOutcome, SendResult } from '../sending/retry-policy.js';

export type DeliveryWithLog = Delivery & { log: DeliveryAttempt[] };

export interface NewDelivery {
  workspaceId: string;
  projectId: string | null;
  runId: string | null;
  jobId: string | null;
  eventId: string;
  eventKey: string;
  event: string;
  channel: 'webhook' | 'chat' | 'email';
  service: string | null;
  url: string;
  host: string;
  body: string;
  secret: string | null;
  test: boolean;
}

export interface DeliveryFilter {
  workspaceId: string;
  projectId?: string;
  runId?: string;
  /** A key's allow-list: only deliveries of these projects. */
  onlyProjects?: string[];
  channels?: string[];
  before?: string;
  take: number;
}

/** The newest delivery of one channel, as its health reads it. */
export interface LatestDelivery {
  projectId: string;
  channel: string;
  status: string;
  lastStatus: number | null;
  lastError: string | null;
  retries: number;
  lastAttemptAt: Date | null;
}

export interface StatusCounts {
  delivered: number;
  pending: number;
  failed: number;
  paused: number;
}

// Every time here is the database's (UTC, as Prisma stores DateTime), so several delivery
// workers on several machines agree on what is due.
const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;

/**
 * The only file of delivery that touches delivery and delivery_attempt: the durable schedule.
 * A due row is claimed with a lease (FOR UPDATE SKIP LOCKED, so concurrent workers take
 * different rows), sent by the claimer, and settled only while the claimer still holds it.
 */
export class DeliveryRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Adds deliveries, due now; one already made for the same event and receiver is kept as it was. */
  async add(rows: NewDelivery[]): Promise<Delivery[]> {
    if (rows.length === 0) return [];
    return this.prisma.delivery.createManyAndReturn({
      // Payloads carry what pages said (titles, URLs, fields): cleaned like every web-taken string.
      data: storable(rows).map((r) => ({ ...r, id: newId('dlv'), nextAt: new Date() })),
      skipDuplicates: true,
    });
  }

  /**
   * Claims due deliveries for `owner` until the lease ends: at most `limit`, at most `perHost`
   * for one receiver host (`free` gives hosts with fewer slots left), oldest due first. Ranking
   * per host keeps one host's backlog from filling the batch while others wait.
   */
  async claimDue(opts: {
    owner: string;
    leaseMs: number;
    limit: number;
    perHost: number;
    free: Record<string, number>;
  }): Promise<Delivery[]> {
    if (opts.limit <= 0) return [];
    const claimed = await this.prisma.$queryRaw<{ id: string }[]>`
      WITH ranked AS (
        SELECT id, host, next_at, row_number() OVER (PARTITION BY host ORDER BY next_at, id) AS rn
        FROM delivery
        WHERE status = 'pending' AND next_at <= ${NOW}
          AND (lease_until IS NULL OR lease_until < ${NOW})
      ), picked AS (
        SELECT id FROM ranked
        WHERE rn <= COALESCE((${JSON.stringify(opts.free)}::jsonb ->> host)::int, ${opts.perHost}::int)
        ORDER BY next_at, id
        LIMIT ${opts.limit}::int
      ), locked AS (
        SELECT d.id FROM delivery d JOIN picked p ON p.id = d.id
        WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < ${NOW})
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE delivery
      SET lease_until = ${NOW} + ${opts.leaseMs}::float8 * interval '1 millisecond', lease_owner = ${opts.owner}
      WHERE id IN (SELECT id FROM locked)
        AND status = 'pending' AND (lease_until IS NULL OR lease_until < ${NOW})
      RETURNING id`;
    if (claimed.length === 0) return [];
    return this.prisma.delivery.findMany({
      where: { id: { in: claimed.map((c) => c.id) } },
      orderBy: { nextAt: 'asc' },
    });
  }

  /**
   * Milliseconds until the next pending delivery falls due, or null when none is waiting for
   * its time. Rows already due but not claimable (another worker's lease, a host at its limit
   * here) are not counted: the caller's poll interval and wake-ups cover them.
   */
  async msUntilNextDue(): Promise<number | null> {
    const [row] = await this.prisma.$queryRaw<{ ms: number }[]>`
      SELECT (EXTRACT(EPOCH FROM (next_at - ${NOW})) * 1000)::float8 AS ms
      FROM delivery WHERE status = 'pending' AND next_at > ${NOW}
      ORDER BY next_at LIMIT 1`;
    return row ? Math.max(0, row.ms) : null;
  }

  /**
   * Writes one attempt and what follows it, if `owner` still holds the lease (a worker whose
   * lease ran out does not overwrite the one that took over). Returns false when it did not.
   * A redelivery asked while the attempt was out (the row changed since `delivery` was claimed:
   * the claim itself leaves `updated_at` alone) is not overwritten by the attempt's outcome: the
   * delivery stays pending, due now, for the send the caller asked for.
   */
  async settle(
    delivery: Delivery,
    owner: string,
    attempt: { at: Date; result: SendResult; outcome: AttemptOutcome; delayMs: number | null },
  ): Promise<boolean> {
    const { outcome } = attempt;
    // A receiver's answer is the web's: its error text is cleaned before it is kept.
    const result = storable(attempt.result);
    const status = outcome === 'retry' ? 'pending' : outcome;
    const retried = outcome === 'retry' ? 1 : 0;
    const nextAt =
      outcome === 'retry'
        ? Prisma.sql`${NOW} + ${attempt.delayMs ?? 0}::float8 * interval '1 millisecond'`
        : Prisma.sql`NULL`;
    // One statement, not an interactive transaction: a settle holds no pooled connection across
    // round trips, so 32 settling at once on a loaded machine do not time out waiting for one
    // (a settle not written leaves the delivery leased, and sent again when the lease runs out).
    const rows = await this.prisma.$queryRaw<{ number: number }[]>`
      WITH settled AS (
        UPDATE delivery SET
          status = CASE WHEN updated_at > ${delivery.updatedAt} THEN 'pending' ELSE ${status} END,
          attempts = attempts + 1,
          retries = retries + ${retried},
          manual = updated_at > ${delivery.updatedAt} AND ${outcome} <> 'retry',
          next_at = CASE WHEN updated_at > ${delivery.updatedAt} THEN ${NOW} ELSE ${nextAt} END,
          lease_until = NULL,
          lease_owner = NULL,
          last_status = ${result.status},
          last_error = ${result.error},
          delivered_at = ${outcome === 'delivered' ? NOW : Prisma.sql`delivered_at`},
          updated_at = ${NOW}
        WHERE id = ${delivery.id} AND lease_owner = ${owner}
        RETURNING attempts
      )
      INSERT INTO delivery_attempt (delivery_id, number, at, duration_ms, http_status, error, outcome, manual)
      SELECT ${delivery.id}, attempts, ${attempt.at}, ${result.durationMs}::int, ${result.status}::int,
        ${result.error}, ${outcome}, ${delivery.manual}
      FROM settled
      RETURNING number`;
    return rows.length > 0;
  }

  /** Gives a claimed delivery back untouched (the worker is stopping before it sent). */
  async release(id: string, owner: string): Promise<void> {
    await this.prisma.delivery.updateMany({
      where: { id, leaseOwner: owner },
      data: { leaseUntil: null, leaseOwner: null },
    });
  }

  /**
   * Redeliver: a finished delivery gets one more send now, attempts kept; a pending one has its
   * next attempt brought forward. Null when there is no such delivery.
   */
  async redeliver(workspaceId: string, id: string, onlyProjects: string[]): Promise<DeliveryWithLog | null> {
    const found = await this.find(workspaceId, id, onlyProjects);
    // E-mails are not the API's to resend.
    if (!found || found.channel === 'email') return null;
    await this.prisma.$executeRaw`
      UPDATE delivery SET
        manual = CASE WHEN status = 'pending' THEN manual ELSE true END,
        status = 'pending',
        next_at = ${NOW},
        updated_at = ${NOW}
      WHERE id = ${id} AND workspace_id = ${workspaceId}`;
    return this.find(workspaceId, id, onlyProjects);
  }

  async find(workspaceId: string, id: string, onlyProjects: string[] = []): Promise<DeliveryWithLog | null> {
    return this.prisma.delivery.findFirst({
      where: { id, workspaceId, ...(onlyProjects.length ? { projectId: { in: onlyProjects } } : {}) },
      include: { log: { orderBy: { number: 'asc' } } },
    });
  }

  /** Newest first, paged by id, each with its attempts. */
  list(f: DeliveryFilter): Promise<DeliveryWithLog[]> {
    const projectIds = f.onlyProjects?.length ? f.onlyProjects : undefined;
    return this.prisma.delivery.findMany({
      where: {
        workspaceId: f.workspaceId,
        ...(f.runId ? { runId: f.runId } : {}),
        ...(f.projectId || projectIds
          ? {
              projectId: {
                ...(f.projectId ? { equals: f.projectId } : {}),
                ...(projectIds ? { in: projectIds } : {}),
              },
            }
          : {}),
        ...(f.channels ? { channel: { in: f.channels } } : {}),
        ...(f.before ? { id: { lt: f.before } } : {}),
      },
      include: { log: { orderBy: { number: 'asc' } } },
      orderBy: { id: 'desc' },
      take: f.take,
    });
  }

  /** The latest delivery of each (project, channel) among `projectIds`, for health. */
  async latestByChannel(workspaceId: string, projectIds: string[]): Promise<LatestDelivery[]> {
    if (projectIds.length === 0) return [];
    return this.prisma.$queryRaw<LatestDelivery[]>`
      SELECT DISTINCT ON (project_id, channel)
        project_id AS "projectId", channel, status, last_status AS "lastStatus", last_error AS "lastError",
        retries, (SELECT max(at) FROM delivery_attempt a WHERE a.delivery_id = delivery.id) AS "lastAttemptAt"
      FROM delivery
      WHERE workspace_id = ${workspaceId} AND project_id = ANY(${projectIds}) AND channel IN ('webhook', 'chat')
      ORDER BY project_id, channel, id DESC`;
  }

  /** Deliveries of the last 7 days per (project, channel, status). */
  async recentCounts(
    workspaceId: string,
    projectIds: string[],
  ): Promise<{ projectId: string; channel: string; status: string; n: number }[]> {
    if (projectIds.length === 0) return [];
    return this.prisma.$queryRaw`
      SELECT project_id AS "projectId", channel, status, count(*)::int AS n
      FROM delivery
      WHERE workspace_id = ${workspaceId} AND project_id = ANY(${projectIds}) AND channel IN ('webhook', 'chat')
        AND created_at > ${NOW} - interval '7 days'
      GROUP BY project_id, channel, status`;
  }
}

export const emptyCounts = (): StatusCounts => ({ delivered: 0, pending: 0, failed: 0, paused: 0 });
