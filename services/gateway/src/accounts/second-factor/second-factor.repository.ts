import type { PrismaClient } from '@tidemark/db';

/** A user's TOTP seed and last step taken, and when a session last showed a code. */
export class SecondFactorRepository {
  constructor(private readonly prisma: PrismaClient) {}

  markSecondFactor(sessionId: string, at: Date): Promise<unknown> {
    return this.prisma.session.update({ where: { id: sessionId }, data: { mfaAt: at } });
  }

  setSecondFactor(
    userId: string,
    data: { mfaSecret: string | null; mfaEnabledAt: Date | null; mfaLastStep: number | null },
  ) {
    return this.prisma.user.update({ where: { id: userId }, data });
  }

  /**
   * Takes a TOTP step for the user if it is later than the last one taken (one statement, so two
   * requests with one code cannot both pass). Answers whether it was taken.
   */
  async takeSecondFactorStep(userId: string, step: number, enable: boolean): Promise<boolean> {
    const n = await this.prisma.$executeRaw`
      UPDATE "user" SET mfa_last_step = ${step},
        mfa_enabled_at = CASE WHEN ${enable} THEN COALESCE(mfa_enabled_at, now()) ELSE mfa_enabled_at END
      WHERE id = ${userId} AND (mfa_last_step IS NULL OR mfa_last_step < ${step})`;
    return n > 0;
  }
}
