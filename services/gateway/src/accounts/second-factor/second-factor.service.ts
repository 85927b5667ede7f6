import { ConflictError, ForbiddenError } from '@tidemark/errors';
import type { SecretBox } from '@tidemark/secret-box';
import type { SignedIn } from '../sessions/session.repository.js';
import type { UserRepository } from '../user.repository.js';
import type { SecondFactorRepository } from './second-factor.repository.js';
import { matchTotp, newTotpSecret, otpauthUrl } from './totp.js';

/** Two-factor by TOTP: a seed for an authenticator app, sealed at rest; each code works once. */
export class SecondFactorService {
  constructor(
    private readonly secondFactor: SecondFactorRepository,
    private readonly users: UserRepository,
    /** Seals second-factor seeds at rest. */
    private readonly box: SecretBox,
  ) {}

  /** A new seed for an authenticator app; two-factor is on once a code from it is shown. */
  async setup(s: SignedIn): Promise<{ secret: string; otpauthUrl: string }> {
    if (s.user.mfaEnabledAt) throw new ConflictError('two-factor is on already; turn it off first to change it');
    const secret = newTotpSecret();
    await this.secondFactor.setSecondFactor(s.user.id, {
      mfaSecret: this.box.seal(secret),
      mfaEnabledAt: null,
      mfaLastStep: null,
    });
    return { secret, otpauthUrl: otpauthUrl(secret, s.user.email) };
  }

  /** A code from the app: turns two-factor on (after setup) and marks this session as having shown one. */
  async verify(s: SignedIn, code: string): Promise<{ enabled: true; verifiedAt: Date }> {
    const user = await this.users.findUser(s.user.id);
    if (!user?.mfaSecret) throw new ConflictError('set up two-factor first (POST /v1/auth/2fa/setup)');
    if (!(await this.takeCode(user, code, true))) throw new ForbiddenError('the second-factor code is not right');
    const at = new Date();
    await this.secondFactor.markSecondFactor(s.session.id, at);
    return { enabled: true, verifiedAt: at };
  }

  /** Turns two-factor off (a current code is asked); a workspace's requirement still applies. */
  async disable(s: SignedIn, code: string): Promise<void> {
    const user = await this.users.findUser(s.user.id);
    if (!user?.mfaEnabledAt) throw new ConflictError('two-factor is off');
    if (!(await this.takeCode(user, code, false))) throw new ForbiddenError('the second-factor code is not right');
    await this.secondFactor.setSecondFactor(user.id, { mfaSecret: null, mfaEnabledAt: null, mfaLastStep: null });
  }

  /** Whether the code is right and not used before (sign-in asks here too); `enable` turns two-factor on. */
  async takeCode(
    user: { id: string; mfaSecret: string | null; mfaLastStep: number | null },
    code: string,
    enable: boolean,
  ): Promise<boolean> {
    if (!user.mfaSecret) return false;
    const step = matchTotp(this.box.open(user.mfaSecret), code, Date.now(), user.mfaLastStep);
    return step !== null && (await this.secondFactor.takeSecondFactorStep(user.id, step, enable));
  }
}
