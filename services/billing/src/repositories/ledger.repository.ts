import { newId, Prisma, type PrismaClient, type RawDb } from '@tidemark/db';

export interface LedgerTotals {
  granted: number;
  used: number;
}

export interface LedgerSummary extends LedgerTotals {
  plan: string;
  /** Credits held for work in flight. */
  held: number;
  welcomed: boolean;
}

export interface LedgerEntryInput {
  workspaceId: string;
  kind: 'grant' | 'charge';
  reason: string;
  credits: number;
  reference: string;
}

/**
 * The only file of billing that touches ledger_entry, credit_hold and credit_balance. The
 * balance row is the ledger's totals, moved by a trigger with every entry (migration
 * 20261121160000_credit_balance): holds and balances read it instead of summing the ledger, so
 * they cost the same for a workspace with ten entries or ten million.
 */
export class LedgerRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** node-postgres for the batched holds and charges every crawled page makes (see RawDb). */
    private readonly raw: RawDb,
  ) {}

  /**
   * Writes an entry once per (workspace, reference). Answers false when it was already there,
   * so a redelivered message or a second path to the same grant changes nothing.
   */
  async appendOnce(entry: LedgerEntryInput): Promise<boolean> {
    try {
      await this.prisma.ledgerEntry.create({ data: { id: newId('led'), ...entry } });
      return true;
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return false;
      throw err;
    }
  }

  /**
   * The workspace's plan, ledger totals and live holds in one statement (Balance is on every
   * GET /me). Null when the workspace does not exist.
   */
  async summary(workspaceId: string): Promise<LedgerSummary | null> {
    const rows = await this.prisma.$queryRaw<
      { plan: string; granted: bigint; used: bigint; held: bigint; welcomed: boolean | null }[]
    >`
      SELECT w.plan,
             COALESCE(b.granted, 0)::bigint AS granted,
             COALESCE(b.used, 0)::bigint AS used,
             (SELECT COALESCE(SUM(h.credits), 0) FROM credit_hold h
               WHERE h.workspace_id = w.id AND h.expires_at > now())::bigint AS held,
             b.welcomed
        FROM workspace w
        LEFT JOIN credit_balance b ON b.workspace_id = w.id
       WHERE w.id = ${workspaceId}`;
    const row = rows[0];
    if (!row) return null;
    return {
      plan: row.plan,
      granted: Number(row.granted),
      used: Number(row.used),
      held: Number(row.held),
      welcomed: row.welcomed === true,
    };
  }

  /**
   * Holds credits under the workspace's advisory lock: the hold is written only if the work is
   * not charged yet and what is left (ledger sum less live holds of other work) pays for it.
   * Answers true when a hold is now in place (new, or renewed); false when it was refused or the
   * work is already charged (the caller tells which, off the hot path). One statement through the
   * raw pool (`credit_hold_many` with one unit), which queues a burst of holds for a connection;
   * Prisma's transaction gave up on one after 2 s (P2028) when holds of one workspace queued on its
   * lock under load.
   */
  async holdIfAffordable(hold: {
    workspaceId: string;
    reference: string;
    reason: string;
    credits: number;
    ttlMs: number;
  }): Promise<boolean> {
    const { workspaceId, reference, reason, credits, ttlMs } = hold;
    const [outcome] = await this.holdManyIfAffordable(workspaceId, [{ reference, reason, credits }], ttlMs);
    return outcome === 'held';
  }

  /**
   * Holds for several units of work of one workspace in one statement under its lock (the
   * `credit_hold_many` function): the balance is read once and each hold, in the order given, is
   * placed while what is left pays for it. Answers per unit: `held` (new or renewed), `charged`
   * (already charged: nothing held) or `refused`.
   */
  async holdManyIfAffordable(
    workspaceId: string,
    holds: { reference: string; reason: string; credits: number }[],
    ttlMs: number,
  ): Promise<('held' | 'charged' | 'refused')[]> {
    const [row] = await this.raw.$queryRaw<{ outcomes: ('held' | 'charged' | 'refused')[] }[]>`
      SELECT credit_hold_many(${workspaceId}, ${holds.map((h) => h.reference)}::text[],
                              ${holds.map((h) => h.reason)}::text[], ${holds.map((h) => h.credits)}::int[],
                              ${Math.round(ttlMs)}::int) AS outcomes`;
    return row!.outcomes;
  }

  /**
   * Ends holds and writes charges for several units of work in one statement (so one implicit
   * transaction), each once per reference. A unit drawn from a block (`fromHold`, a hold made for
   * many units) shrinks that hold by what this call charged it instead. Answers per unit whether
   * this call charged it.
   */
  async chargeManyOnce(given: (LedgerEntryInput & { fromHold?: string })[]): Promise<boolean[]> {
    // Rows are written in (workspace, reference) order: two batches that share references then
    // take their row and index locks in the same order and cannot deadlock on each other.
    const order = (e: LedgerEntryInput) => `${e.workspaceId}\n${e.reference}`;
    const entries = [...given].sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0));
    // Prepared (libs/db PREPARED_MARK): run for every few pages, planned the same whatever they are.
    const statement = () => this.raw.$queryRaw<{ workspace_id: string; reference: string }[]>`/* prepared */
      WITH input AS (
        SELECT * FROM unnest(${entries.map(() => newId('led'))}::text[], ${entries.map((e) => e.workspaceId)}::text[],
                             ${entries.map((e) => e.kind)}::text[], ${entries.map((e) => e.reason)}::text[],
                             ${entries.map((e) => e.credits)}::int[], ${entries.map((e) => e.reference)}::text[],
                             ${entries.map((e) => e.fromHold ?? '')}::text[])
                 AS t(id, ws, kind, reason, credits, ref, from_hold)
      ), released AS (
        DELETE FROM credit_hold h USING input t
         WHERE t.from_hold = '' AND h.workspace_id = t.ws AND h.reference = t.ref
      ), inserted AS (
        INSERT INTO ledger_entry (id, workspace_id, kind, reason, credits, reference)
        SELECT t.id, t.ws, t.kind, t.reason, t.credits, t.ref FROM input t WHERE t.credits <> 0
        ON CONFLICT (workspace_id, reference) DO NOTHING
        RETURNING workspace_id, reference, credits
      ), drawn AS (
        UPDATE credit_hold h SET credits = GREATEST(0, h.credits + d.charged)
          FROM (SELECT t.ws, t.from_hold, sum(i.credits)::int AS charged
                  FROM input t JOIN inserted i ON i.workspace_id = t.ws AND i.reference = t.ref
                 WHERE t.from_hold <> '' GROUP BY t.ws, t.from_hold) d
         WHERE h.workspace_id = d.ws AND h.reference = d.from_hold
      )
      SELECT workspace_id, reference FROM inserted`;
    let inserted: { workspace_id: string; reference: string }[];
    for (let attempt = 1; ; attempt++) {
      try {
        inserted = await statement();
        break;
      } catch (err) {
        // Two batches drawing on the same blocks in another order: PostgreSQL ends one; it is
        // the same statement again (nothing was written).
        if ((err as { code?: string }).code !== '40P01' || attempt >= 3) throw err;
      }
    }
    const charged = new Set(inserted.map((r) => `${r.workspace_id}\n${r.reference}`));
    return given.map((e) => charged.has(`${e.workspaceId}\n${e.reference}`));
  }

  /** Ends a hold and writes the charge, once per reference, in one statement (chargeManyOnce). */
  async chargeOnce(entry: LedgerEntryInput): Promise<boolean> {
    const [charged] = await this.chargeManyOnce([entry]);
    return charged === true;
  }

  async hasEntry(workspaceId: string, reference: string): Promise<boolean> {
    return (await this.prisma.ledgerEntry.count({ where: { workspaceId, reference } })) > 0;
  }

  async pruneExpiredHolds(now = new Date()): Promise<number> {
    const { count } = await this.prisma.creditHold.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }

  /**
   * Credits granted and used per UTC day from `since` on, by reason (the usage view). The
   * (workspace_id, created_at) index bounds the read to those days.
   */
  async usageByDay(
    workspaceId: string,
    since: Date,
  ): Promise<{ day: string; kind: string; reason: string; credits: number }[]> {
    const rows = await this.prisma.$queryRaw<{ day: string; kind: string; reason: string; credits: bigint }[]>`
      SELECT to_char(created_at, 'YYYY-MM-DD') AS day, kind, reason, SUM(credits)::bigint AS credits
        FROM ledger_entry
       WHERE workspace_id = ${workspaceId} AND created_at >= ${since}
       GROUP BY 1, 2, 3
       ORDER BY 1`;
    return rows.map((r) => ({ ...r, credits: Number(r.credits) }));
  }
}
