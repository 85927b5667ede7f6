import { Prisma, type IdempotencyRecord, type PrismaClient } from '@tidemark/db';

/** The only file of the gateway that touches idempotency_record. */
export class IdempotencyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Claims a key for a first request; answers null when the key is already taken. */
  async claim(rec: {
    workspaceId: string;
    key: string;
    route: string;
    requestHash: string;
    expiresAt: Date;
  }): Promise<IdempotencyRecord | null> {
    try {
      return await this.prisma.idempotencyRecord.create({ data: rec });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return null;
      throw err;
    }
  }

  find(workspaceId: string, key: string): Promise<IdempotencyRecord | null> {
    return this.prisma.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
  }

  async complete(
    workspaceId: string,
    key: string,
    answer: { status: number; body: unknown; headers: Record<string, string> },
  ): Promise<void> {
    await this.prisma.idempotencyRecord.update({
      where: { workspaceId_key: { workspaceId, key } },
      data: {
        status: answer.status,
        body: (answer.body ?? Prisma.JsonNull) as Prisma.InputJsonValue,
        headers: answer.headers,
      },
    });
  }

  /** Drops a claim (a failed first attempt, or an expired record) so the key can be used again. */
  async release(workspaceId: string, key: string, onlyExpiredBefore?: Date): Promise<void> {
    await this.prisma.idempotencyRecord.deleteMany({
      where: { workspaceId, key, ...(onlyExpiredBefore ? { expiresAt: { lte: onlyExpiredBefore } } : {}) },
    });
  }

  async pruneExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }
}
