import { ConflictError, ForbiddenError, NotFoundError } from '@tidemark/errors';
import type { MemberRepository } from './member.repository.js';
import { mayGrant, RANK, type Role } from './roles.js';

/** A workspace's members: listed, their roles changed, removed; never without an owner. */
export class MemberService {
  constructor(private readonly members: MemberRepository) {}

  list(workspaceId: string) {
    return this.members.members(workspaceId);
  }

  /** An admin changes roles; only an owner grants or takes away ownership; never the last owner. */
  async setRole(actor: { role: Role; workspaceId: string }, userId: string, role: Role): Promise<void> {
    mayGrant(actor.role, role);
    const target = await this.members.role(actor.workspaceId, userId);
    if (!target) throw new NotFoundError('member');
    if (target === 'owner' && actor.role !== 'owner') throw new ForbiddenError('only an owner changes an owner');
    const out = await this.members.setRole(actor.workspaceId, userId, role);
    if (out === 'missing') throw new NotFoundError('member');
    if (out === 'last_owner') throw new ConflictError('the workspace needs an owner: make someone else owner first');
  }

  /** An admin removes a member (an owner, only by an owner); anyone may leave. */
  async remove(actor: { role: Role; workspaceId: string; userId: string | null }, userId: string): Promise<void> {
    const target = await this.members.role(actor.workspaceId, userId);
    if (!target) throw new NotFoundError('member');
    if (userId !== actor.userId) {
      if (RANK[actor.role] < RANK.admin) throw new ForbiddenError('removing a member needs the admin role');
      if (target === 'owner' && actor.role !== 'owner') throw new ForbiddenError('only an owner removes an owner');
    }
    const out = await this.members.removeMember(actor.workspaceId, userId);
    if (out === 'missing') throw new NotFoundError('member');
    if (out === 'last_owner') throw new ConflictError('the workspace needs an owner: make someone else owner first');
  }
}
