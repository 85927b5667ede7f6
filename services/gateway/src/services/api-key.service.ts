import type { ApiKey } from '@tidemark/db';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { KeyCache } from '../http/key-cache.js';
import { SCOPE_LEVEL, type AuthContext, type Scope } from '../http/route.js';
import type { ApiKeyRepository } from '../repositories/api-key.repository.js';
import type { ProjectRepository } from '../repositories/project.repository.js';
import { displayPrefix, hashKeySecret, mintKeySecret } from './key-secret.js';

export interface NewKey {
  name: string;
  scopes: Scope[];
  projects: string[];
  expiresInDays: number | null;
  rpm: number | null;
}

const DAY_MS = 86_400_000;

/** One way a requested key would reach further than the caller creating it. */
interface Widening {
  field: string;
  message: string;
}

/**
 * Where a key asked for would be wider than its creator: a scope above the creator's (a member's
 * is their role's), projects outside the creator's allow-list (or every project, when the creator
 * has one), a rate above the creator's own (or none), an expiry later than the creator's (or none).
 */
export const wideningOf = (creator: AuthContext, input: NewKey, now = Date.now()): Widening[] => {
  const out: Widening[] = [];
  const asked = input.scopes.reduce<Scope>((a, s) => (SCOPE_LEVEL[s] > SCOPE_LEVEL[a] ? s : a), 'read');
  if (SCOPE_LEVEL[asked] > SCOPE_LEVEL[creator.scope])
    out.push({
      field: 'body.scopes',
      message: `${asked} is above what you act with (${creator.scope}); a key you create can have ${creator.scope} at most`,
    });
  if (creator.projects.length > 0) {
    const outside = input.projects.filter((p) => !creator.projects.includes(p));
    if (input.projects.length === 0)
      out.push({
        field: 'body.projects',
        message: `this key is limited to ${creator.projects.join(', ')}; a key it creates must list projects among those (empty means every project)`,
      });
    else if (outside.length > 0)
      out.push({
        field: 'body.projects',
        message: `${outside.join(', ')} is outside this key's allow-list (${creator.projects.join(', ')})`,
      });
  }
  if (creator.keyRpm !== null && (input.rpm === null || input.rpm > creator.keyRpm))
    out.push({
      field: 'body.rpm',
      message: `this key has its own rate of ${creator.keyRpm} a minute; a key it creates needs an rpm of ${creator.keyRpm} or less`,
    });
  // A session's expiry slides with use; only a key's is a limit.
  if (!creator.member && creator.expiresAt) {
    const left = Math.floor((creator.expiresAt.getTime() - now) / DAY_MS);
    if (input.expiresInDays === null || input.expiresInDays > left)
      out.push({
        field: 'body.expires_in_days',
        message:
          left >= 1
            ? `this key expires at ${creator.expiresAt.toISOString()}; a key it creates must expire by then (expires_in_days ${left} or less)`
            : `this key expires at ${creator.expiresAt.toISOString()}, within a day: it cannot create keys`,
      });
  }
  return out;
};

/** The keys a caller limited to some projects may see: those limited within the same projects. */
const reachOf = (caller: AuthContext): { within?: string[] } =>
  caller.projects.length > 0 ? { within: caller.projects } : {};

export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly projects: ProjectRepository,
    private readonly cache: KeyCache,
  ) {}

  /**
   * Creates a key; the secret is in this answer only. Allow-listed projects must be this
   * workspace's, and the key can be no wider than its creator (403 naming the fields).
   */
  async create(creator: AuthContext, input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const workspaceId = creator.workspaceId;
    const unique = [...new Set(input.projects)];
    const wider = wideningOf(creator, { ...input, projects: unique });
    if (wider.length > 0)
      throw new ApiError(
        'forbidden',
        `a key cannot be wider than its creator: ${wider.map((w) => `${w.field}: ${w.message}`).join('; ')}`,
        { details: { fields: wider } },
      );
    const found = await this.projects.existingIds(workspaceId, unique);
    const missing = unique.findIndex((id) => !found.has(id));
    if (missing >= 0) {
      throw new ValidationError(`body.projects.${missing}: no project ${unique[missing]} in this workspace`, {
        fields: [{ field: `body.projects.${missing}`, message: 'no such project' }],
      });
    }
    const secret = mintKeySecret();
    const key = await this.keys.create({
      workspaceId,
      name: input.name,
      prefix: displayPrefix(secret),
      hash: hashKeySecret(secret),
      scopes: [...new Set(input.scopes)],
      projects: unique,
      rpm: input.rpm,
      expiresAt: input.expiresInDays === null ? null : new Date(Date.now() + input.expiresInDays * 86_400_000),
    });
    return { key, secret };
  }

  /** The workspace's keys; a key limited to some projects sees only keys limited within them. */
  list(caller: AuthContext, before: string | undefined, take: number): Promise<ApiKey[]> {
    return this.keys.listActive(caller.workspaceId, { before, take, ...reachOf(caller) });
  }

  /** Revokes a key the caller can see (as in `list`); any other is 404. */
  async revoke(caller: AuthContext, id: string): Promise<void> {
    if (!(await this.keys.revoke(caller.workspaceId, id, reachOf(caller).within))) throw new NotFoundError('API key');
    this.cache.invalidate({ keyId: id });
  }
}
