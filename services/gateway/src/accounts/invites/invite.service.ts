import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '@tidemark/errors';
import type { AccountMail } from '../account-mail.js';
import type { MemberRepository } from '../members/member.repository.js';
import { mayGrant, type Role } from '../members/roles.js';
import { hashPassword, PASSWORD_MIN, verifyPassword, WRONG_PASSWORD } from '../password-hash.js';
import type { SignedIn } from '../sessions/session.repository.js';
import type { ClientMeta, Opened, SessionService } from '../sessions/session.service.js';
import { hashToken, mintToken, normalizeEmail } from '../tokens.js';
import type { UserRepository } from '../user.repository.js';
import type { InviteRepository } from './invite.repository.js';

const INVITE_TTL = 7 * 24 * 3600_000;

/** Invitations: an admin invites an address with a role; the code, used once, makes a member. */
export class InviteService {
  constructor(
    private readonly invites: InviteRepository,
    private readonly users: UserRepository,
    private readonly members: MemberRepository,
    private readonly sessions: SessionService,
    private readonly mail: AccountMail,
  ) {}

  pending(workspaceId: string) {
    return this.invites.pendingInvites(workspaceId);
  }

  /**
   * Invites an address with a role (only an owner makes owners). The token is mailed when a mail
   * host is configured and answered once here, so an admin can hand it over themselves.
   */
  async invite(
    inviter: { userId: string | null; role: Role; workspaceId: string; workspaceName: string },
    input: { email: string; role: Role },
  ) {
    mayGrant(inviter.role, input.role);
    const mail = await this.mail.configured();
    const email = normalizeEmail(input.email);
    const existing = await this.users.findUserByEmail(email);
    if (existing && (await this.members.role(inviter.workspaceId, existing.id)))
      throw new ConflictError(`${email} is already a member`);
    const token = mintToken();
    const invite = await this.invites.createInvite({
      workspaceId: inviter.workspaceId,
      email,
      role: input.role,
      hash: hashToken(token),
      invitedBy: inviter.userId,
      expiresAt: new Date(Date.now() + INVITE_TTL),
    });
    if (!mail) return { invite, token, sent: false };
    const sent = await this.mail.send(
      email,
      `You are invited to ${inviter.workspaceName} on Tidemark`,
      `You are invited to join the workspace "${inviter.workspaceName}" on Tidemark as ${input.role}. The invitation works once and for seven days:\n\n${token}\n${this.mail.link('invite', token)}`,
    );
    if (sent) await this.invites.markInviteMailed(invite.id);
    // With a mail host the code goes only to the address: handing it to the inviter would let
    // them accept it as that address.
    return { invite, token: null, sent };
  }

  async withdraw(workspaceId: string, id: string): Promise<void> {
    if (!(await this.invites.deleteInvite(workspaceId, id))) throw new NotFoundError('invite');
  }

  async info(token: string) {
    const invite = await this.invites.openInvite(hashToken(token));
    if (!invite) throw new NotFoundError('invite (unknown, used or expired)');
    const user = await this.users.findUserByEmail(invite.email);
    return { invite, accountExists: user !== null };
  }

  /**
   * Accepts an invitation. Signed in, the session's user must be the one invited; signed out,
   * an existing account proves itself with its password and a new one is created with it.
   * Answers a session opened in the invited workspace.
   */
  async accept(
    token: string,
    input: { password?: string | undefined; name?: string | undefined },
    current: SignedIn | null,
    meta: ClientMeta,
  ): Promise<Opened> {
    const hash = hashToken(token);
    const invite = await this.invites.openInvite(hash);
    if (!invite) throw new NotFoundError('invite (unknown, used or expired)');
    // Only a code that travelled by mail proves the address. One handed to the inviter (no mail
    // host) proves nothing: a new account then follows the sign-up rule (confirmed only while no
    // mail host is configured); an existing one keeps what it had.
    const proves = invite.mailedAt !== null;
    const newAccountConfirmed = proves || !(await this.mail.configured());
    let accepted: Awaited<ReturnType<InviteRepository['acceptInvite']>>;
    if (current) {
      if (current.user.email !== invite.email)
        throw new ForbiddenError(`this invitation is for ${invite.email}; sign in as that address to accept it`);
      accepted = await this.invites.acceptInvite(hash, { userId: current.user.id }, proves);
    } else {
      if (!input.password) throw new ValidationError('password: required to accept an invitation signed out');
      const user = await this.users.findUserByEmail(invite.email);
      if (user) {
        if (!(await verifyPassword(input.password, user.passwordHash))) throw new UnauthorizedError(WRONG_PASSWORD);
        accepted = await this.invites.acceptInvite(hash, { userId: user.id }, proves);
      } else {
        if (input.password.length < PASSWORD_MIN)
          throw new ValidationError(`password: at least ${PASSWORD_MIN} characters for a new account`);
        accepted = await this.invites.acceptInvite(
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
    if (current) return { signedIn: await this.sessions.moveInto(current, accepted.workspaceId), token: '' };
    return this.sessions.open(accepted.user.id, accepted.workspaceId, meta);
  }
}
