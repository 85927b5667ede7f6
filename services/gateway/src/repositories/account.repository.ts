import { newId, type Invite, type PrismaClient, type User } from '@tidemark/db';
import { workspaceSummary } from './workspace.repository.js';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface SessionRow {
  id: string;
  userId: string;
  workspaceId: string;
  mfaAt: Date | null;
  userAgent: string | null;
  ip: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/** A live session with everything a request needs: the user, their role and the workspace. */
export interface SignedIn {
  session: SessionRow;
  /** The SHA-256 of the session's token (kept to read the session again; never shown). */
  hash: string;
  user: User;
  role: Role;
  workspace: { id: string; name: string; plan: string; maxRpm: number | null; requireMfa: boolean; createdAt: Date };
}

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  emailVerified: boolean;
  joinedAt: Date;
}

/** Users, members, sessions, invites and e-mail tokens (the gateway owns them all). */
export class AccountRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findUserByEmail(email: string): Promise<User | null> {
    return this.prisma.user.findUnique({ where: { email } });
  }

  findUser(id: string): Promise<User | null> {
    return this.prisma.user.findUnique({ where: { id } });
  }

  /** A new user who owns a new workspace, together or not at all. */
  async createOwner(
    user: { email: string; name: string | null; passwordHash: string; verified: boolean },
    workspaceName: string,
  ): Promise<{ user: User; workspaceId: string }> {
    const userId = newId('usr');
    const workspaceId = newId('ws');
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          id: userId,
          email: user.email,
          name: user.name,
          passwordHash: user.passwordHash,
          emailVerifiedAt: user.verified ? new Date() : null,
        },
      });
      await tx.workspace.create({ data: { id: workspaceId, name: workspaceName } });
      await tx.member.create({ data: { workspaceId, userId, role: 'owner' } });
      return { user: created, workspaceId };
    });
  }

  updateUser(id: string, data: { name?: string | null; passwordHash?: string; emailVerifiedAt?: Date }): Promise<User> {
    return this.prisma.user.update({ where: { id }, data });
  }

  // --- members -------------------------------------------------------------------------------

  async role(workspaceId: string, userId: string): Promise<Role | null> {
    const m = await this.prisma.member.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } });
    return (m?.role as Role | undefined) ?? null;
  }

  async memberships(userId: string): Promise<{ id: string; name: string; role: Role }[]> {
    const rows = await this.prisma.member.findMany({
      where: { userId },
      include: { workspace: { select: { id: true, name: true } } },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role as Role }));
  }

  async members(workspaceId: string): Promise<MemberRow[]> {
    const rows = await this.prisma.member.findMany({
      where: { workspaceId },
      include: { user: true },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((m) => ({
      userId: m.userId,
      email: m.user.email,
      name: m.user.name,
      role: m.role as Role,
      emailVerified: m.user.emailVerifiedAt !== null,
      joinedAt: m.createdAt,
    }));
  }

  /**
   * Changes a member's role, refusing (false) to leave the workspace without an owner. The owner
   * rows are locked so two concurrent demotions cannot both pass the check.
   */
  async setRole(workspaceId: string, userId: string, role: Role): Promise<'ok' | 'missing' | 'last_owner'> {
    return this.prisma.$transaction(async (tx) => {
      const owners = await tx.$queryRaw<{ user_id: string }[]>`
        SELECT user_id FROM member WHERE workspace_id = ${workspaceId} AND role = 'owner' FOR UPDATE`;
      const m = await tx.member.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } });
      if (!m) return 'missing';
      if (m.role === 'owner' && role !== 'owner' && owners.length <= 1) return 'last_owner';
      await tx.member.update({ where: { workspaceId_userId: { workspaceId, userId } }, data: { role } });
      return 'ok';
    });
  }

  /** Removes a member and ends their sessions in the workspace; never the last owner. */
  async removeMember(workspaceId: string, userId: string): Promise<'ok' | 'missing' | 'last_owner'> {
    return this.prisma.$transaction(async (tx) => {
      const owners = await tx.$queryRaw<{ user_id: string }[]>`
        SELECT user_id FROM member WHERE workspace_id = ${workspaceId} AND role = 'owner' FOR UPDATE`;
      const m = await tx.member.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } });
      if (!m) return 'missing';
      if (m.role === 'owner' && owners.length <= 1) return 'last_owner';
      await tx.member.delete({ where: { workspaceId_userId: { workspaceId, userId } } });
      await tx.session.deleteMany({ where: { workspaceId, userId } });
      return 'ok';
    });
  }

  // --- sessions ------------------------------------------------------------------------------

  createSession(
    s: Omit<SessionRow, 'id' | 'createdAt' | 'lastSeenAt' | 'mfaAt'> & { hash: string; mfaAt?: Date | null },
  ): Promise<SessionRow> {
    return this.prisma.session.create({ data: { ...s, id: newId('ses') }, omit: { hash: true } });
  }

  /** The live session with this token hash, its user, role and workspace; null when expired or gone. */
  async signedIn(hash: string, now = new Date()): Promise<SignedIn | null> {
    const row = await this.prisma.session.findUnique({
      where: { hash },
      omit: { hash: true },
      include: { user: true },
    });
    if (!row || row.expiresAt <= now) return null;
    const member = await this.prisma.member.findUnique({
      where: { workspaceId_userId: { workspaceId: row.workspaceId, userId: row.userId } },
      include: { workspace: true },
    });
    if (!member) return null;
    const { user, ...session } = row;
    return {
      session,
      hash,
      user,
      role: member.role as Role,
      workspace: workspaceSummary(member.workspace),
    };
  }

  touchSession(id: string, expiresAt: Date): Promise<unknown> {
    return this.prisma.session.updateMany({ where: { id }, data: { lastSeenAt: new Date(), expiresAt } });
  }

  markSecondFactor(id: string, at: Date): Promise<unknown> {
    return this.prisma.session.update({ where: { id }, data: { mfaAt: at } });
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

  moveSession(id: string, workspaceId: string): Promise<unknown> {
    return this.prisma.session.update({ where: { id }, data: { workspaceId } });
  }

  sessions(userId: string): Promise<SessionRow[]> {
    return this.prisma.session.findMany({
      where: { userId, expiresAt: { gt: new Date() } },
      omit: { hash: true },
      orderBy: { lastSeenAt: 'desc' },
    });
  }

  async endSession(userId: string, id: string): Promise<boolean> {
    return (await this.prisma.session.deleteMany({ where: { id, userId } })).count > 0;
  }

  async endSessions(userId: string, except?: string): Promise<number> {
    return (await this.prisma.session.deleteMany({ where: { userId, ...(except ? { id: { not: except } } : {}) } }))
      .count;
  }

  // --- e-mail tokens -------------------------------------------------------------------------

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

  // --- invites -------------------------------------------------------------------------------

  createInvite(i: {
    workspaceId: string;
    email: string;
    role: Role;
    hash: string;
    invitedBy: string | null;
    expiresAt: Date;
  }) {
    return this.prisma.invite.create({ data: { ...i, id: newId('inv') }, omit: { hash: true } });
  }

  async markInviteMailed(id: string): Promise<void> {
    await this.prisma.invite.update({ where: { id }, data: { mailedAt: new Date() } });
  }

  pendingInvites(workspaceId: string) {
    return this.prisma.invite.findMany({
      where: { workspaceId, acceptedAt: null, expiresAt: { gt: new Date() } },
      omit: { hash: true },
      orderBy: { createdAt: 'asc' },
    });
  }

  async deleteInvite(workspaceId: string, id: string): Promise<boolean> {
    return (await this.prisma.invite.deleteMany({ where: { id, workspaceId, acceptedAt: null } })).count > 0;
  }

  /** A pending, unexpired invite by its token hash, with the workspace's name. */
  openInvite(hash: string): Promise<(Omit<Invite, 'hash'> & { workspace: { name: string } }) | null> {
    return this.prisma.invite.findFirst({
      where: { hash, acceptedAt: null, expiresAt: { gt: new Date() } },
      omit: { hash: true },
      include: { workspace: { select: { name: true } } },
    });
  }

  /**
   * Accepts an invite for a user (created here when `newUser` is given): the invite is spent
   * with a conditional update so it admits exactly one person; a user already a member keeps
   * their role. Answers the user, or null when the invite was no longer open.
   */
  async acceptInvite(
    hash: string,
    who: { userId: string } | { newUser: { email: string; name: string | null; passwordHash: string } },
    /** The address is proven: an existing user becomes confirmed, a new one is created so. */
    confirmed: boolean,
  ): Promise<{ user: User; workspaceId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      const spent = await tx.$queryRaw<{ workspace_id: string; role: string }[]>`
        UPDATE invite SET accepted_at = now()
        WHERE hash = ${hash} AND accepted_at IS NULL AND expires_at > now()
        RETURNING workspace_id, role`;
      const invite = spent[0];
      if (!invite) return null;
      const user =
        'userId' in who
          ? await tx.user.update({
              where: { id: who.userId },
              data: confirmed
                ? {
                    emailVerifiedAt:
                      (await tx.user.findUnique({ where: { id: who.userId } }))?.emailVerifiedAt ?? new Date(),
                  }
                : {},
            })
          : await tx.user.create({
              data: { id: newId('usr'), ...who.newUser, emailVerifiedAt: confirmed ? new Date() : null },
            });
      await tx.member.upsert({
        where: { workspaceId_userId: { workspaceId: invite.workspace_id, userId: user.id } },
        create: { workspaceId: invite.workspace_id, userId: user.id, role: invite.role },
        update: {},
      });
      return { user, workspaceId: invite.workspace_id };
    });
  }
}
