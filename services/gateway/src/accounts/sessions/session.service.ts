import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '@tidemark/errors';
import type { User } from '@tidemark/db';
import type { Logger } from '@tidemark/telemetry';
import type { WorkspaceService } from '../../services/workspace.service.js';
import type { AccountMail } from '../account-mail.js';
import type { EmailVerificationService } from '../email-verification/email-verification.service.js';
import type { MemberRepository } from '../members/member.repository.js';
import { hashPassword, verifyPassword, WRONG_PASSWORD } from '../password-hash.js';
import type { SecondFactorService } from '../second-factor/second-factor.service.js';
import { hashToken, mintToken, normalizeEmail } from '../tokens.js';
import type { UserRepository } from '../user.repository.js';
import type { SessionRepository, SessionRow, SignedIn } from './session.repository.js';

/** A session's expiry moves forward at most this often (one write a minute for a busy session). */
const TOUCH_EVERY_MS = 60_000;

export interface ClientMeta {
  userAgent: string | null;
  ip: string | null;
}

export interface Opened {
  signedIn: SignedIn;
  /** The session token: the cookie's value, never stored. */
  token: string;
}

/** Signing up and in, the session behind a cookie, moving it between workspaces, ending sessions. */
export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly users: UserRepository,
    private readonly members: MemberRepository,
    private readonly secondFactor: SecondFactorService,
    private readonly emailVerification: EmailVerificationService,
    private readonly workspaces: WorkspaceService,
    private readonly mail: AccountMail,
    private readonly sessionTtlMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Sign-up. Without a mail host the account is created, taken as confirmed, and signed in; an
   * address that has an account is 409 (there is nobody to tell, and a sign-up must sign in).
   * With a mail host the answer is the same whether or not the address has an account, and
   * nobody is signed in: a new address gets its account and a confirmation code; an address
   * with a confirmed account gets a mail telling its owner; one still unconfirmed gets a fresh
   * code. The password is hashed either way, so the work is alike too.
   */
  async signup(
    input: { email: string; password: string; name?: string | undefined; workspace?: string | undefined },
    meta: ClientMeta,
  ): Promise<{ opened: Opened } | { mailed: true }> {
    const email = normalizeEmail(input.email);
    const mail = await this.mail.configured();
    const existing = await this.users.findUserByEmail(email);
    const passwordHash = await hashPassword(input.password);
    if (existing) {
      if (!mail) throw new ConflictError('an account with this e-mail exists: sign in instead');
      await this.tellExisting(existing);
      return { mailed: true };
    }
    let created: { user: User; workspaceId: string };
    try {
      created = await this.users.createOwner(
        { email, name: input.name ?? null, passwordHash, verified: !mail },
        input.workspace ?? `${input.name ?? email.split('@')[0]}'s workspace`,
      );
    } catch (err) {
      // Two sign-ups with one address at once: the unique index decides; the other one lost.
      if ((err as { code?: string }).code !== 'P2002') throw err;
      if (!mail) throw new ConflictError('an account with this e-mail exists');
      return { mailed: true };
    }
    const { user, workspaceId } = created;
    await this.workspaces.grantWelcome(workspaceId);
    this.logger.info({ userId: user.id, workspaceId }, 'account created');
    if (!mail) return { opened: await this.open(user.id, workspaceId, meta) };
    await this.emailVerification.send(user.id, email);
    return { mailed: true };
  }

  /** A sign-up named an address that has an account: its owner hears of it, nobody else does. */
  private async tellExisting(user: User): Promise<void> {
    if (!user.emailVerifiedAt) {
      // Signed up before and never confirmed: the confirmation again (the first password stays).
      await this.emailVerification.send(user.id, user.email, true);
      return;
    }
    await this.mail.send(
      user.email,
      'Someone tried to sign up to Tidemark with your address',
      `Someone — perhaps you — tried to create a Tidemark account with this address, which already has one. Nothing was changed.\n\nIf it was you, sign in with your password; if you have forgotten it, ask for a reset ("Forgot your password?").\nIf it was not you, you can ignore this message.`,
    );
  }

  /**
   * Email and password; the session opens in `workspaceId` if given, else the first workspace
   * joined. With two-factor on, `code` completes the sign-in; without it the session can only
   * show a code (POST /auth/2fa/verify), see itself or sign out (mfa_required elsewhere).
   */
  async login(
    input: { email: string; password: string; workspaceId?: string | undefined; code?: string | undefined },
    meta: ClientMeta,
  ): Promise<Opened> {
    const user = await this.users.findUserByEmail(normalizeEmail(input.email));
    // The hash is checked even for an unknown address, so timing does not tell which exist.
    const ok = await verifyPassword(input.password, user?.passwordHash);
    const mail = await this.mail.configured();
    // With a mail host, an unconfirmed account cannot sign in, and says so in the words of a
    // wrong password: otherwise signing up then in would tell whether the address had an account.
    if (!user || !ok || (mail && !user.emailVerifiedAt))
      throw new UnauthorizedError(
        mail
          ? 'wrong e-mail or password, or the address is not confirmed yet (use the code we mailed)'
          : WRONG_PASSWORD,
      );
    const memberships = await this.members.memberships(user.id);
    const target = input.workspaceId ? memberships.find((m) => m.id === input.workspaceId) : memberships[0];
    if (!target) {
      if (input.workspaceId) throw new NotFoundError('workspace');
      throw new ForbiddenError('this account belongs to no workspace: accept an invitation first');
    }
    let mfaAt: Date | null = null;
    if (user.mfaEnabledAt && input.code) {
      if (!(await this.secondFactor.takeCode(user, input.code, false)))
        throw new UnauthorizedError('the second-factor code is not right');
      mfaAt = new Date();
    }
    return this.open(user.id, target.id, meta, mfaAt);
  }

  /** A new session for the user in the workspace, and its token (sign-up, sign-in, an invitation). */
  async open(userId: string, workspaceId: string, meta: ClientMeta, mfaAt: Date | null = null): Promise<Opened> {
    const token = mintToken();
    await this.sessions.createSession({
      hash: hashToken(token),
      mfaAt,
      userId,
      workspaceId,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip,
      expiresAt: new Date(Date.now() + this.sessionTtlMs),
    });
    const signedIn = await this.sessions.signedIn(hashToken(token));
    if (!signedIn) throw new Error('a session just opened could not be read back');
    return { signedIn, token };
  }

  /** The session behind a cookie, its expiry moved forward when it is used. */
  async authenticate(token: string): Promise<SignedIn | null> {
    const signedIn = await this.sessions.signedIn(hashToken(token));
    if (signedIn && Date.now() - signedIn.session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      signedIn.session.expiresAt = new Date(Date.now() + this.sessionTtlMs);
      void this.sessions.touchSession(signedIn.session.id, signedIn.session.expiresAt).catch(() => undefined);
    }
    return signedIn;
  }

  async logout(s: SignedIn): Promise<void> {
    await this.sessions.endSession(s.user.id, s.session.id);
  }

  async switchWorkspace(s: SignedIn, workspaceId: string): Promise<SignedIn> {
    if (!(await this.members.role(workspaceId, s.user.id))) throw new NotFoundError('workspace');
    await this.sessions.moveSession(s.session.id, workspaceId);
    const moved = await this.sessions.signedIn(s.hash);
    if (!moved) throw new UnauthorizedError('the session ended');
    return moved;
  }

  /** Moves a session into a workspace its user has just joined (an invitation accepted signed in). */
  async moveInto(s: SignedIn, workspaceId: string): Promise<SignedIn> {
    await this.sessions.moveSession(s.session.id, workspaceId);
    return (await this.sessions.signedIn(s.hash))!;
  }

  memberships(userId: string) {
    return this.members.memberships(userId);
  }

  list(userId: string): Promise<SessionRow[]> {
    return this.sessions.sessions(userId);
  }

  async end(s: SignedIn, id: string): Promise<void> {
    if (!(await this.sessions.endSession(s.user.id, id))) throw new NotFoundError('session');
  }

  /** Signs out everywhere but here. */
  endOthers(s: SignedIn): Promise<number> {
    return this.sessions.endSessions(s.user.id, s.session.id);
  }

  updateProfile(s: SignedIn, name: string | null) {
    return this.users.updateUser(s.user.id, { name });
  }
}
