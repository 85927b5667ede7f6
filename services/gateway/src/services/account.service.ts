import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { DeliveryClient } from '../clients/delivery.client.js';
import type { User } from '@tidemark/db';
import type { AccountRepository, Role, SessionRow, SignedIn } from '../repositories/account.repository.js';
import type { SecretBox } from '@tidemark/secret-box';
import { hashPassword, PASSWORD_MIN, verifyPassword } from './password.js';
import { matchTotp, newTotpSecret, otpauthUrl } from './totp.js';
import type { WorkspaceService } from './workspace.service.js';

const HOUR = 3600_000;
const VERIFY_TTL = 48 * HOUR;
const RESET_TTL = 1 * HOUR;
const INVITE_TTL = 7 * 24 * HOUR;
/** A session's expiry moves forward at most this often (one write a minute for a busy session). */
const TOUCH_EVERY_MS = 60_000;

const MAIL_STATUS_TTL_MS = 60_000;
const WRONG_PASSWORD = 'wrong e-mail or password';

/** Session, e-mail and invite tokens: 256 random bits, stored as a SHA-256 only. */
export const mintToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export interface ClientMeta {
  userAgent: string | null;
  ip: string | null;
}

export interface Opened {
  signedIn: SignedIn;
  /** The session token: the cookie's value, never stored. */
  token: string;
}

export interface AccountOptions {
  sessionTtlMs: number;
  /** Where the web application lives; e-mails link to it when set. */
  appUrl?: string;
}

/**
 * Members of workspaces: sign-up, sign-in and sessions, e-mail verification, password reset,
 * invitations and roles. Mail goes out through the delivery service's SMTP host; without one
 * there is nobody to prove an address to, so a sign-up is taken as verified (docs/decisions.md).
 */
export class AccountService {
  private mailKnown: { mail: boolean; until: number } | null = null;

  constructor(
    private readonly accounts: AccountRepository,
    private readonly workspaces: WorkspaceService,
    private readonly delivery: DeliveryClient,
    /** Seals second-factor seeds at rest. */
    private readonly box: SecretBox,
    private readonly opts: AccountOptions,
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
    const mail = await this.mailConfigured();
    const existing = await this.accounts.findUserByEmail(email);
    const passwordHash = await hashPassword(input.password);
    if (existing) {
      if (!mail) throw new ConflictError('an account with this e-mail exists: sign in instead');
      await this.tellExisting(existing);
      return { mailed: true };
    }
    let created: { user: User; workspaceId: string };
    try {
      created = await this.accounts.createOwner(
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
    await this.sendVerification(user.id, email);
    return { mailed: true };
  }

  /** A sign-up named an address that has an account: its owner hears of it, nobody else does. */
  private async tellExisting(user: User): Promise<void> {
    if (!user.emailVerifiedAt) {
      // Signed up before and never confirmed: the confirmation again (the first password stays).
      await this.sendVerification(user.id, user.email, true);
      return;
    }
    await this.mail(
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
    const user = await this.accounts.findUserByEmail(normalizeEmail(input.email));
    // The hash is checked even for an unknown address, so timing does not tell which exist.
    const ok = await verifyPassword(input.password, user?.passwordHash);
    const mail = await this.mailConfigured();
    // With a mail host, an unconfirmed account cannot sign in, and says so in the words of a
    // wrong password: otherwise signing up then in would tell whether the address had an account.
    if (!user || !ok || (mail && !user.emailVerifiedAt))
      throw new UnauthorizedError(
        mail
          ? 'wrong e-mail or password, or the address is not confirmed yet (use the code we mailed)'
          : WRONG_PASSWORD,
      );
    const memberships = await this.accounts.memberships(user.id);
    const target = input.workspaceId ? memberships.find((m) => m.id === input.workspaceId) : memberships[0];
    if (!target) {
      if (input.workspaceId) throw new NotFoundError('workspace');
      throw new ForbiddenError('this account belongs to no workspace: accept an invitation first');
    }
    let mfaAt: Date | null = null;
    if (user.mfaEnabledAt && input.code) {
      if (!(await this.takeCode(user, input.code, false)))
        throw new UnauthorizedError('the second-factor code is not right');
      mfaAt = new Date();
    }
    return this.open(user.id, target.id, meta, mfaAt);
  }

  // --- the second factor (TOTP) --------------------------------------------------------------

  /** A new seed for an authenticator app; two-factor is on once a code from it is shown. */
  async setupSecondFactor(s: SignedIn): Promise<{ secret: string; otpauthUrl: string }> {
    if (s.user.mfaEnabledAt) throw new ConflictError('two-factor is on already; turn it off first to change it');
    const secret = newTotpSecret();
    await this.accounts.setSecondFactor(s.user.id, {
      mfaSecret: this.box.seal(secret),
      mfaEnabledAt: null,
      mfaLastStep: null,
    });
    return { secret, otpauthUrl: otpauthUrl(secret, s.user.email) };
  }

  /** A code from the app: turns two-factor on (after setup) and marks this session as having shown one. */
  async verifySecondFactor(s: SignedIn, code: string): Promise<{ enabled: true; verifiedAt: Date }> {
    const user = await this.accounts.findUser(s.user.id);
    if (!user?.mfaSecret) throw new ConflictError('set up two-factor first (POST /v1/auth/2fa/setup)');
    if (!(await this.takeCode(user, code, true))) throw new ForbiddenError('the second-factor code is not right');
    const at = new Date();
    await this.accounts.markSecondFactor(s.session.id, at);
    return { enabled: true, verifiedAt: at };
  }

  /** Turns two-factor off (a current code is asked); a workspace's requirement still applies. */
  async disableSecondFactor(s: SignedIn, code: string): Promise<void> {
    const user = await this.accounts.findUser(s.user.id);
    if (!user?.mfaEnabledAt) throw new ConflictError('two-factor is off');
    if (!(await this.takeCode(user, code, false))) throw new ForbiddenError('the second-factor code is not right');
    await this.accounts.setSecondFactor(user.id, { mfaSecret: null, mfaEnabledAt: null, mfaLastStep: null });
  }

  private async takeCode(
    user: { id: string; mfaSecret: string | null; mfaLastStep: number | null },
    code: string,
    enable: boolean,
  ): Promise<boolean> {
    if (!user.mfaSecret) return false;
    const step = matchTotp(this.box.open(user.mfaSecret), code, Date.now(), user.mfaLastStep);
    return step !== null && (await this.accounts.takeSecondFactorStep(user.id, step, enable));
  }

  /** The session behind a cookie, its expiry moved forward when it is used. */
  async authenticate(token: string): Promise<SignedIn | null> {
    const signedIn = await this.accounts.signedIn(hashToken(token));
    if (signedIn && Date.now() - signedIn.session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      signedIn.session.expiresAt = new Date(Date.now() + this.opts.sessionTtlMs);
      void this.accounts.touchSession(signedIn.session.id, signedIn.session.expiresAt).catch(() => undefined);
    }
    return signedIn;
  }

  async logout(s: SignedIn): Promise<void> {
    await this.accounts.endSession(s.user.id, s.session.id);
  }

  async switchWorkspace(s: SignedIn, workspaceId: string): Promise<SignedIn> {
    if (!(await this.accounts.role(workspaceId, s.user.id))) throw new NotFoundError('workspace');
    await this.accounts.moveSession(s.session.id, workspaceId);
    const moved = await this.accounts.signedIn(s.hash);
    if (!moved) throw new UnauthorizedError('the session ended');
    return moved;
  }

  memberships(userId: string) {
    return this.accounts.memberships(userId);
  }

  sessions(userId: string): Promise<SessionRow[]> {
    return this.accounts.sessions(userId);
  }

  async endSession(s: SignedIn, id: string): Promise<void> {
    if (!(await this.accounts.endSession(s.user.id, id))) throw new NotFoundError('session');
  }

  /** Signs out everywhere but here. */
  endOtherSessions(s: SignedIn): Promise<number> {
    return this.accounts.endSessions(s.user.id, s.session.id);
  }

  // --- e-mail verification and passwords -----------------------------------------------------

  async requestVerification(s: SignedIn): Promise<{ sent: boolean; verified: boolean }> {
    if (s.user.emailVerifiedAt) return { sent: false, verified: true };
    return { sent: await this.sendVerification(s.user.id, s.user.email), verified: false };
  }

  async verify(token: string): Promise<void> {
    const userId = await this.accounts.spendToken(hashToken(token), 'verify');
    if (!userId) throw new NotFoundError('verification token (unknown, used or expired)');
    await this.accounts.updateUser(userId, { emailVerifiedAt: new Date() });
  }

  /** Always answers the same, whether the address has an account or not. */
  async forgot(email: string): Promise<void> {
    const user = await this.accounts.findUserByEmail(normalizeEmail(email));
    if (!user) return;
    const token = mintToken();
    await this.accounts.issueToken(user.id, 'reset', hashToken(token), new Date(Date.now() + RESET_TTL));
    await this.mail(
      user.email,
      'Reset your Tidemark password',
      `Someone asked to reset the password of this Tidemark account. If it was you, use this code within an hour:\n\n${token}\n${this.link('reset', token)}\nIf it was not, ignore this message: your password stays as it is.`,
    );
  }

  /** A new password from a reset token; every session of the account ends. */
  async reset(token: string, password: string): Promise<void> {
    const userId = await this.accounts.spendToken(hashToken(token), 'reset');
    if (!userId) throw new NotFoundError('reset token (unknown, used or expired)');
    // Receiving the reset mail proves the address as well.
    const user = await this.accounts.findUser(userId);
    await this.accounts.updateUser(userId, {
      passwordHash: await hashPassword(password),
      ...(user?.emailVerifiedAt ? {} : { emailVerifiedAt: new Date() }),
    });
    await this.accounts.endSessions(userId);
  }

  /** Changes the password knowing the current one; other sessions end, this one stays. */
  async changePassword(s: SignedIn, current: string, next: string): Promise<number> {
    if (!(await verifyPassword(current, s.user.passwordHash)))
      throw new ForbiddenError('the current password is not right');
    await this.accounts.updateUser(s.user.id, { passwordHash: await hashPassword(next) });
    return this.accounts.endSessions(s.user.id, s.session.id);
  }

  updateProfile(s: SignedIn, name: string | null) {
    return this.accounts.updateUser(s.user.id, { name });
  }

  // --- members and invitations ---------------------------------------------------------------

  members(workspaceId: string) {
    return this.accounts.members(workspaceId);
  }

  pendingInvites(workspaceId: string) {
    return this.accounts.pendingInvites(workspaceId);
  }

  /**
   * Invites an address with a role (only an owner makes owners). The token is mailed when a mail
   * host is configured and answered once here, so an admin can hand it over themselves.
   */
  async invite(
    inviter: { userId: string | null; role: Role; workspaceId: string; workspaceName: string },
    input: { email: string; role: Role },
  ) {
    this.mayGrant(inviter.role, input.role);
    const mail = await this.mailConfigured();
    const email = normalizeEmail(input.email);
    const existing = await this.accounts.findUserByEmail(email);
    if (existing && (await this.accounts.role(inviter.workspaceId, existing.id)))
      throw new ConflictError(`${email} is already a member`);
    const token = mintToken();
    const invite = await this.accounts.createInvite({
      workspaceId: inviter.workspaceId,
      email,
      role: input.role,
      hash: hashToken(token),
      invitedBy: inviter.userId,
      expiresAt: new Date(Date.now() + INVITE_TTL),
    });
    if (!mail) return { invite, token, sent: false };
    const sent = await this.mail(
      email,
      `You are invited to ${inviter.workspaceName} on Tidemark`,
      `You are invited to join the workspace "${inviter.workspaceName}" on Tidemark as ${input.role}. The invitation works once and for seven days:\n\n${token}\n${this.link('invite', token)}`,
    );
    if (sent) await this.accounts.markInviteMailed(invite.id);
    // With a mail host the code goes only to the address: handing it to the inviter would let
    // them accept it as that address.
    return { invite, token: null, sent };
  }

  async deleteInvite(workspaceId: string, id: string): Promise<void> {
    if (!(await this.accounts.deleteInvite(workspaceId, id))) throw new NotFoundError('invite');
  }

  async inviteInfo(token: string) {
    const invite = await this.accounts.openInvite(hashToken(token));
    if (!invite) throw new NotFoundError('invite (unknown, used or expired)');
    const user = await this.accounts.findUserByEmail(invite.email);
    return { invite, accountExists: user !== null };
  }

  /**
   * Accepts an invitation. Signed in, the session's user must be the one invited; signed out,
   * an existing account proves itself with its password and a new one is created with it.
   * Answers a session opened in the invited workspace.
   */
  async acceptInvite(
    token: string,
    input: { password?: string | undefined; name?: string | undefined },
    current: SignedIn | null,
    meta: ClientMeta,
  ): Promise<Opened> {
    const hash = hashToken(token);
    const invite = await this.accounts.openInvite(hash);
    if (!invite) throw new NotFoundError('invite (unknown, used or expired)');
    // Only a code that travelled by mail proves the address. One handed to the inviter (no mail
    // host) proves nothing: a new account then follows the sign-up rule (confirmed only while no
    // mail host is configured); an existing one keeps what it had.
    const proves = invite.mailedAt !== null;
    const newAccountConfirmed = proves || !(await this.mailConfigured());
    let accepted: Awaited<ReturnType<AccountRepository['acceptInvite']>>;
    if (current) {
      if (current.user.email !== invite.email)
        throw new ForbiddenError(`this invitation is for ${invite.email}; sign in as that address to accept it`);
      accepted = await this.accounts.acceptInvite(hash, { userId: current.user.id }, proves);
    } else {
      if (!input.password) throw new ValidationError('password: required to accept an invitation signed out');
      const user = await this.accounts.findUserByEmail(invite.email);
      if (user) {
        if (!(await verifyPassword(input.password, user.passwordHash))) throw new UnauthorizedError(WRONG_PASSWORD);
        accepted = await this.accounts.acceptInvite(hash, { userId: user.id }, proves);
      } else {
        if (input.password.length < PASSWORD_MIN)
          throw new ValidationError(`password: at least ${PASSWORD_MIN} characters for a new account`);
        accepted = await this.accounts.acceptInvite(
          hash,
          {
            newUser: {
              email: invite.email,
              name: input.name ?? null,
              passwordHash: await hashPassword(input.password),
            },
          },
          newAccountConfirmed,
        );
      }
    }
    if (!accepted) throw new NotFoundError('invite (unknown, used or expired)');
    if (current) {
      await this.accounts.moveSession(current.session.id, accepted.workspaceId);
      return { signedIn: (await this.accounts.signedIn(current.hash))!, token: '' };
    }
    return this.open(accepted.user.id, accepted.workspaceId, meta);
  }

  /** An admin changes roles; only an owner grants or takes away ownership; never the last owner. */
  async setRole(actor: { role: Role; workspaceId: string }, userId: string, role: Role): Promise<void> {
    this.mayGrant(actor.role, role);
    const target = await this.accounts.role(actor.workspaceId, userId);
    if (!target) throw new NotFoundError('member');
    if (target === 'owner' && actor.role !== 'owner') throw new ForbiddenError('only an owner changes an owner');
    const out = await this.accounts.setRole(actor.workspaceId, userId, role);
    if (out === 'missing') throw new NotFoundError('member');
    if (out === 'last_owner') throw new ConflictError('the workspace needs an owner: make someone else owner first');
  }

  /** An admin removes a member (an owner, only by an owner); anyone may leave. */
  async removeMember(actor: { role: Role; workspaceId: string; userId: string | null }, userId: string): Promise<void> {
    const target = await this.accounts.role(actor.workspaceId, userId);
    if (!target) throw new NotFoundError('member');
    if (userId !== actor.userId) {
      if (RANK[actor.role] < RANK.admin) throw new ForbiddenError('removing a member needs the admin role');
      if (target === 'owner' && actor.role !== 'owner') throw new ForbiddenError('only an owner removes an owner');
    }
    const out = await this.accounts.removeMember(actor.workspaceId, userId);
    if (out === 'missing') throw new NotFoundError('member');
    if (out === 'last_owner') throw new ConflictError('the workspace needs an owner: make someone else owner first');
  }

  // --- helpers -------------------------------------------------------------------------------

  private mayGrant(actor: Role, role: Role): void {
    if (role === 'owner' && actor !== 'owner') throw new ForbiddenError('only an owner makes owners');
    if (RANK[actor] < RANK.admin) throw new ForbiddenError('this needs the admin role');
  }

  private async open(
    userId: string,
    workspaceId: string,
    meta: ClientMeta,
    mfaAt: Date | null = null,
  ): Promise<Opened> {
    const token = mintToken();
    await this.accounts.createSession({
      hash: hashToken(token),
      mfaAt,
      userId,
      workspaceId,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip,
      expiresAt: new Date(Date.now() + this.opts.sessionTtlMs),
    });
    const signedIn = await this.accounts.signedIn(hashToken(token));
    if (!signedIn) throw new Error('a session just opened could not be read back');
    return { signedIn, token };
  }

  private async sendVerification(userId: string, email: string, again = false): Promise<boolean> {
    const token = mintToken();
    await this.accounts.issueToken(userId, 'verify', hashToken(token), new Date(Date.now() + VERIFY_TTL));
    const note = again
      ? '\nThis address signed up before and was never confirmed. Once it is, sign in with the password chosen the first time (or reset it with "Forgot your password?").\n'
      : '';
    return this.mail(
      email,
      'Confirm your e-mail address for Tidemark',
      `Confirm this address for your Tidemark account with this code (it works once, for 48 hours):\n\n${token}\n${this.link('verify', token)}${note}`,
    );
  }

  private link(kind: string, token: string): string {
    return this.opts.appUrl ? `\n${this.opts.appUrl.replace(/\/$/, '')}/${kind}?token=${token}\n` : '';
  }

  /** Whether a mail host is configured (delivery's setting; asked at most once a minute). */
  private async mailConfigured(): Promise<boolean> {
    if (this.mailKnown && this.mailKnown.until > Date.now()) return this.mailKnown.mail;
    const { mail } = await this.delivery.call('mailStatus', {});
    this.mailKnown = { mail, until: Date.now() + MAIL_STATUS_TTL_MS };
    return mail;
  }

  private async mail(to: string, subject: string, text: string): Promise<boolean> {
    try {
      return (await this.delivery.call('accountMail', { to, subject, text })).sent;
    } catch (err) {
      this.logger.warn({ err }, 'account mail not sent');
      return false;
    }
  }
}
