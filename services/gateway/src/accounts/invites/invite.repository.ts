import { newId, type Invite, type PrismaClient, type User } from '@tidemark/db';
import type { Role } from '../members/roles.js';

/** Invitations, looked up by the hash of their code; accepting one makes a member. */
export class InviteRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
