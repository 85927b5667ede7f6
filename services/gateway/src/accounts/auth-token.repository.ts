import { newId, type PrismaClient } from '@tidemark/db';

/** The one-time codes mailed to confirm an address or reset a password (`auth_token`). */
export class AuthTokenRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A new one-time token; earlier unused ones of the same purpose stop working. */
  async issueToken(userId: string, purpose: 'verify' | 'reset', hash: string, expiresAt: Date): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.authToken.deleteMany({ where: { userId, purpose, usedAt: null } }),
      this.prisma.authToken.create({ data: { id: newId('tok'), userId, purpose, hash, expiresAt } }),
    ]);
  }

  /** Spends a token: the user it belongs to, or null when unknown, used, expired or of another purpose. */
  async spendToken(hash: string, purpose: 'verify' | 'reset'): Promise<string | null> {
    const rows = await this.prisma.$queryRaw<{ user_id: string }[]>`
      UPDATE auth_token SET used_at = now()
      WHERE hash = ${hash} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`;
    return rows[0]?.user_id ?? null;
  }
}
