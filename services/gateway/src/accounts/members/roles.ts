import { ForbiddenError } from '@tidemark/errors';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** Only an admin grants roles, and only an owner makes owners. */
export const mayGrant = (actor: Role, role: Role): void => {
  if (role === 'owner' && actor !== 'owner') throw new ForbiddenError('only an owner makes owners');
  if (RANK[actor] < RANK.admin) throw new ForbiddenError('this needs the admin role');
};
