import type { PrismaClient } from '@tidemark/db';
import type { Role } from './roles.js';

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  emailVerified: boolean;
  joinedAt: Date;
}

/** Who belongs to which workspace, with which role. */
export class MemberRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
}
