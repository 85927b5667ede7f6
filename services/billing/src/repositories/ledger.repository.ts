import { newId, Prisma, type PrismaClient } from '@tidemark/db';

export interface LedgerTotals {
  granted: number;
  used: number;
}

/** The only file of billing that touches the ledger table. */
export class LedgerRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Writes an entry once per (workspace, reference). Answers false when it was already there,
   * so a redelivered message or a second path to the same grant changes nothing.
   */
  async appendOnce(entry: {
    workspaceId: string;
    kind: 'grant' | 'charge';
    reason: string;
    credits: number;
    reference: string;
  }): Promise<boolean> {
    try {
      await this.prisma.ledgerEntry.create({ data: { id: newId('led'), ...entry } });
      return true;
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return false;
      throw err;
    }
  }

  /**
   * The workspace's plan and ledger sums in one statement (Balance is on every GET /me).
   * Null when the workspace does not exist.
   */
  async summary(workspaceId: string): Promise<(LedgerTotals & { plan: string; welcomed: boolean }) | null> {
    const rows = await this.prisma.$queryRaw<
      { plan: string; granted: bigint; used: bigint; welcomed: boolean | null }[]
    >`
      SELECT w.plan,
             COALESCE(SUM(l.credits) FILTER (WHERE l.kind = 'grant'), 0)::bigint AS granted,
             COALESCE(0 - SUM(l.credits) FILTER (WHERE l.kind = 'charge'), 0)::bigint AS used,
             BOOL_OR(l.reference = 'welcome') AS welcomed
        FROM workspace w
        LEFT JOIN ledger_entry l ON l.workspace_id = w.id
       WHERE w.id = ${workspaceId}
       GROUP BY w.plan`;
    const row = rows[0];
    if (!row) return null;
    return { plan: row.plan, granted: Number(row.granted), used: Number(row.used), welcomed: row.welcomed === true };
  }
}
