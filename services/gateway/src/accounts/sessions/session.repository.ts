import { newId, type PrismaClient, type User } from '@tidemark/db';
import { workspaceSummary } from '../../repositories/workspace.repository.js';
import type { Role } from '../members/roles.js';

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

/** Sessions, looked up by the hash of their cookie's token. */
export class SessionRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
}
