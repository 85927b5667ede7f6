import { NotFoundError } from '@tidemark/errors';
import type { AccountMail } from '../account-mail.js';
import type { AuthTokenRepository } from '../auth-token.repository.js';
import type { SignedIn } from '../sessions/session.repository.js';
import { hashToken, mintToken } from '../tokens.js';
import type { UserRepository } from '../user.repository.js';

const VERIFY_TTL = 48 * 3600_000;

/** Confirming an address with a code mailed to it; until then a member may only read. */
export class EmailVerificationService {
  constructor(
    private readonly tokens: AuthTokenRepository,
    private readonly users: UserRepository,
    private readonly mail: AccountMail,
  ) {}

  async request(s: SignedIn): Promise<{ sent: boolean; verified: boolean }> {
    if (s.user.emailVerifiedAt) return { sent: false, verified: true };
    return { sent: await this.send(s.user.id, s.user.email), verified: false };
  }

  async verify(token: string): Promise<void> {
    const userId = await this.tokens.spendToken(hashToken(token), 'verify');
    if (!userId) throw new NotFoundError('verification token (unknown, used or expired)');
    await this.users.updateUser(userId, { emailVerifiedAt: new Date() });
  }

  /** Mails a new code (earlier ones stop working); `again` tells one who signed up before. Answers whether it went. */
  async send(userId: string, email: string, again = false): Promise<boolean> {
    const token = mintToken();
    await this.tokens.issueToken(userId, 'verify', hashToken(token), new Date(Date.now() + VERIFY_TTL));
    const note = again
      ? '\nThis address signed up before and was never confirmed. Once it is, sign in with the password chosen the first time (or reset it with "Forgot your password?").\n'
      : '';
    return this.mail.send(
      email,
      'Confirm your e-mail address for Tidemark',
      `Confirm this address for your Tidemark account with this code (it works once, for 48 hours):\n\n${token}\n${this.mail.link('verify', token)}${note}`,
    );
  }
}
