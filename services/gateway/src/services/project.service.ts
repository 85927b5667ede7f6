import {
  applyConfigPatch,
  ConfigConflictError,
  configInputSchema,
  presentConfig,
  resolveMaskedKeys,
  saveConfig,
  toConfigPatch,
  type ResolvedConfig,
  type VersionedConfig,
} from '@tidemark/contracts';
import type { Project } from '@tidemark/db';
import { ForbiddenError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { z } from 'zod';
import { canSeeProject } from '../http/auth.js';
import type { AuthContext } from '../http/route.js';
import type { ProjectRepository } from '../repositories/project.repository.js';

type ConfigInput = z.output<typeof configInputSchema>;

export interface ProjectView {
  id: string;
  name: string;
  seed: string;
  host: string;
  schedule: string;
  retention: string;
  config: VersionedConfig;
  createdAt: string;
  updatedAt: string;
}

export const presentProject = (p: Project): ProjectView => ({
  id: p.id,
  name: p.name,
  seed: p.seed,
  host: p.host,
  schedule: p.schedule,
  retention: p.retention,
  // Normalized so keys added to the schema since the project was saved show their defaults.
  config: presentConfig(applyConfigPatch(p.config as unknown as ResolvedConfig, {}), p.configVersion),
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

const toPatch = (input: ConfigInput | undefined, stored: ResolvedConfig | undefined) => {
  try {
    return resolveMaskedKeys(stored, toConfigPatch(input ?? {}));
  } catch (err) {
    if (err instanceof ConfigConflictError) throw new ValidationError(`body.config.${err.spelledAs}: ${err.message}`);
    throw err;
  }
};

export class ProjectService {
  constructor(private readonly projects: ProjectRepository) {}

  async create(
    auth: AuthContext,
    input: { seed: URL; name?: string; schedule: string; retention: string; config?: ConfigInput },
  ): Promise<Project> {
    if (auth.projects.length > 0) {
      throw new ForbiddenError('this key is limited to some projects and cannot create new ones');
    }
    const config = applyConfigPatch(undefined, toPatch(input.config, undefined));
    return this.projects.create({
      workspaceId: auth.workspaceId,
      name: input.name ?? input.seed.hostname,
      seed: input.seed.toString(),
      host: input.seed.hostname,
      schedule: input.schedule,
      retention: input.retention,
      config: config as object,
      configVersion: 1,
    });
  }

  /** One project the key may see; anything else is 404 (another workspace or outside the allow-list). */
  async get(auth: AuthContext, id: string): Promise<Project> {
    const p = canSeeProject(auth, id) ? await this.projects.find(auth.workspaceId, id) : null;
    if (!p) throw new NotFoundError('project');
    return p;
  }

  list(auth: AuthContext, opts: { before?: string; take: number; verdict?: string }): Promise<Project[]> {
    return this.projects.list(auth.workspaceId, {
      ...opts,
      ...(auth.projects.length > 0 ? { only: auth.projects } : {}),
    });
  }

  /** Partial update; a config patch merges into the stored one and moves the version only if it changed. */
  async update(
    auth: AuthContext,
    id: string,
    input: { name?: string; schedule?: string; retention?: string; config?: ConfigInput },
  ): Promise<Project> {
    const current = await this.get(auth, id);
    const data: Record<string, unknown> = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.schedule !== undefined) data.schedule = input.schedule;
    if (input.retention !== undefined) data.retention = input.retention;
    if (input.config !== undefined) {
      const stored = current.config as unknown as ResolvedConfig;
      const saved = saveConfig({ config: stored, version: current.configVersion }, toPatch(input.config, stored));
      if (saved.changed) {
        data.config = saved.config as object;
        data.configVersion = saved.version;
      }
    }
    if (Object.keys(data).length === 0) return current;
    return this.projects.update(id, data);
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    if (!canSeeProject(auth, id) || !(await this.projects.delete(auth.workspaceId, id))) {
      throw new NotFoundError('project');
    }
  }
}
