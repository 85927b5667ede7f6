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
  async appendOnce(entry: { workspaceId: string; kind: 'grant' | 'charge'; reason: string; credits: number; reference: string }): Promise<boolean> {
    try {
      await this.prisma.ledgerEntry.create({ data: { id: newId('led'), ...entry } });
      return true;
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return false;
      throw err;
    }
  }

  async totals(workspaceId: string): Promise<LedgerTotals> {
    const rows = await this.prisma.ledgerEntry.groupBy({
      by: ['kind'],
      where: { workspaceId },
      _sum: { credits: true },
    });
    const sum = (kind: string) => rows.find((r) => r.kind === kind)?._sum.credits ?? 0;
    // Charges are stored negative; 0 - x, not -x, so an empty sum reads 0 rather than -0.
    return { granted: sum('grant'), used: 0 - sum('charge') };
  }

  async hasEntry(workspaceId: string, reference: string): Promise<boolean> {
    return (await this.prisma.ledgerEntry.count({ where: { workspaceId, reference } })) > 0;
  }
}
