import type { ApiKey } from '@tidemark/db';
import { NotFoundError, ValidationError } from '@tidemark/errors';
import type { KeyCache } from '../http/key-cache.js';
import type { Scope } from '../http/route.js';
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

export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly projects: ProjectRepository,
    private readonly cache: KeyCache,
  ) {}

  /** Creates a key; the secret is in this answer only. Allow-listed projects must be this workspace's. */
  async create(workspaceId: string, input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const unique = [...new Set(input.projects)];
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

  list(workspaceId: string, before: string | undefined, take: number): Promise<ApiKey[]> {
    return this.keys.listActive(workspaceId, { before, take });
  }

  async revoke(workspaceId: string, id: string): Promise<void> {
    if (!(await this.keys.revoke(workspaceId, id))) throw new NotFoundError('API key');
    this.cache.invalidate({ keyId: id });
  }
}
