import { ForbiddenError, NotFoundError } from '@tidemark/errors';
import type { AccountMail } from '../account-mail.js';
import type { AuthTokenRepository } from '../auth-token.repository.js';
import { hashPassword, verifyPassword } from '../password-hash.js';
import type { SessionRepository, SignedIn } from '../sessions/session.repository.js';
import { hashToken, mintToken, normalizeEmail } from '../tokens.js';
import type { UserRepository } from '../user.repository.js';

const RESET_TTL = 3600_000;

/** A forgotten password reset by a mailed code, or a known one changed; other sessions end. */
export class PasswordService {
  constructor(
    private readonly tokens: AuthTokenRepository,
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly mail: AccountMail,
  ) {}

  /** Always answers the same, whether the address has an account or not. */
  async forgot(email: string): Promise<void> {
    const user = await this.users.findUserByEmail(normalizeEmail(email));
    if (!user) return;
    const token = mintToken();
    await this.tokens.issueToken(user.id, 'reset', hashToken(token), new Date(Date.now() + RESET_TTL));
    await this.mail.send(
      user.email,
      'Reset your Tidemark password',
      `Someone asked to reset the password of this Tidemark account. If it was you, use this code within an hour:\n\n${token}\n${this.mail.link('reset', token)}\nIf it was not, ignore this message: your password stays as it is.`,
    );
  }

  /** A new password from a reset token; every session of the account ends. */
  async reset(token: string, password: string): Promise<void> {
    const userId = await this.tokens.spendToken(hashToken(token), 'reset');
    if (!userId) throw new NotFoundError('reset token (unknown, used or expired)');
    // Receiving the reset mail proves the address as well.
    const user = await this.users.findUser(userId);
    await this.users.updateUser(userId, {
      passwordHash: await hashPassword(password),
      ...(user?.emailVerifiedAt ? {} : { emailVerifiedAt: new Date() }),
    });
    await this.sessions.endSessions(userId);
  }

  /** Changes the password knowing the current one; other sessions end, this one stays. */
  async change(s: SignedIn, current: string, next: string): Promise<number> {
    if (!(await verifyPassword(current, s.user.passwordHash)))
      throw new ForbiddenError('the current password is not right');
    await this.users.updateUser(s.user.id, { passwordHash: await hashPassword(next) });
    return this.sessions.endSessions(s.user.id, s.session.id);
  }
}
