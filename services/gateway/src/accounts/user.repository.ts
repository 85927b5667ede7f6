import { newId, type PrismaClient, type User } from '@tidemark/db';

/** Users: every use case of the accounts reads them; sign-up creates them with their workspace. */
export class UserRepository {
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
}
