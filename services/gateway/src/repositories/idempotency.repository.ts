import { Prisma, type IdempotencyRecord, type PrismaClient } from '@tidemark/db';

/** One record: a workspace, the caller who made it (`key:<id>` or `user:<id>`) and their key. */
export interface RecordRef {
  workspaceId: string;
  caller: string;
  key: string;
}

const where = (ref: RecordRef) => ({ workspaceId_caller_key: ref });

/** The only file of the gateway that touches idempotency_record. */
export class IdempotencyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Claims a key for a first request; answers null when the caller has it taken already. */
  async claim(
    ref: RecordRef,
    rec: { route: string; requestHash: string; expiresAt: Date },
  ): Promise<IdempotencyRecord | null> {
    try {
      return await this.prisma.idempotencyRecord.create({ data: { ...ref, ...rec } });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return null;
      throw err;
    }
  }

  find(ref: RecordRef): Promise<IdempotencyRecord | null> {
    return this.prisma.idempotencyRecord.findUnique({ where: where(ref) });
  }

  /** Keeps the answer: its body without the secret fields, and those sealed apart. */
  async complete(
    ref: RecordRef,
    answer: { status: number; body: unknown; headers: Record<string, string>; secrets: string | null },
  ): Promise<void> {
    await this.prisma.idempotencyRecord.update({
      where: where(ref),
      data: {
        status: answer.status,
        body: (answer.body ?? Prisma.JsonNull) as Prisma.InputJsonValue,
        headers: answer.headers,
        secrets: answer.secrets,
      },
    });
  }

  /** Drops a claim (an answer not kept, or an expired record) so the key can be used again. */
  async release(ref: RecordRef, onlyExpiredBefore?: Date): Promise<void> {
    await this.prisma.idempotencyRecord.deleteMany({
      where: { ...ref, ...(onlyExpiredBefore ? { expiresAt: { lte: onlyExpiredBefore } } : {}) },
    });
  }

  async pruneExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }
}
