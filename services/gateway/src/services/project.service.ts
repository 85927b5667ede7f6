import {
  applyConfigPatch,
  isSealedValue,
  ConfigConflictError,
  configInputSchema,
  groupsPatch,
  CONFIG_GROUPS,
  presentConfig,
  resolveMaskedKeys,
  saveConfig,
  toConfigPatch,
  type ConfigGroup,
  type ResolvedConfig,
  type VersionedConfig,
} from '@tidemark/contracts';
import type { Project } from '@tidemark/db';
import { ForbiddenError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { OutboundUrlCheck } from '@tidemark/contracts';
import type { z } from 'zod';
import { canSeeProject } from '../http/auth.js';
import type { AuthContext } from '../http/route.js';
import type { ProjectRepository } from '../repositories/project.repository.js';
import type { HeaderSecrets } from './header-secrets.js';

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

const readPatch = (input: ConfigInput | undefined, stored: ResolvedConfig | undefined) => {
  try {
    return resolveMaskedKeys(stored, toConfigPatch(input ?? {}));
  } catch (err) {
    if (err instanceof ConfigConflictError) throw new ValidationError(`body.config.${err.spelledAs}: ${err.message}`);
    throw err;
  }
};

export class ProjectService {
  constructor(
    private readonly projects: ProjectRepository,
    /** The fetch guard's save-time check, for seeds of a batch (refused one by one, with the reason). */
    private readonly outboundUrls: OutboundUrlCheck,
    /** fetch.headers values: sealed at rest, shown in full to admins only. */
    private readonly headers: HeaderSecrets,
  ) {}

  /** A project as the API returns it: chat_url masked, fetch.headers masked unless the caller is an admin. */
  present(auth: AuthContext, p: Project): ProjectView {
    // Normalized so keys added to the schema since the project was saved show their defaults.
    const config = presentConfig(applyConfigPatch(p.config as unknown as ResolvedConfig, {}), p.configVersion);
    config.fetch.headers = this.headers.present(config.fetch.headers, auth.scope === 'admin');
    return {
      id: p.id,
      name: p.name,
      seed: p.seed,
      host: p.host,
      schedule: p.schedule,
      retention: p.retention,
      config,
      createdAt: p.createdAt.toISOString(),
      updatedAt: p.updatedAt.toISOString(),
    };
  }

  /** A caller's config patch read against the stored config, its header values sealed. */
  private toPatch(input: ConfigInput | undefined, stored: ResolvedConfig | undefined) {
    const patch = readPatch(input, stored);
    if (patch.headers) patch.headers = this.headers.sealPatch(patch.headers, stored?.fetch?.headers);
    return patch;
  }

  async create(
    auth: AuthContext,
    input: { seed: URL; name?: string; schedule: string; retention: string; config?: ConfigInput },
  ): Promise<Project> {
    if (auth.projects.length > 0) {
      throw new ForbiddenError('this key is limited to some projects and cannot create new ones');
    }
    const config = applyConfigPatch(undefined, this.toPatch(input.config, undefined));
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
      const saved = saveConfig({ config: stored, version: current.configVersion }, this.toPatch(input.config, stored));
      if (saved.changed) {
        data.config = saved.config as object;
        data.configVersion = saved.version;
      }
    }
    if (Object.keys(data).length === 0) return current;
    return this.projects.update(id, data);
  }

  /**
   * One project per seed, each taking the template's config (its site-bound keys — URL lists,
   * feeds, path patterns — left at their defaults), schedule and retention unless given. A seed
   * that cannot become a project is listed with the reason; the others are created.
   */
  async createBatch(
    auth: AuthContext,
    input: { seeds: string[]; template_project_id?: string; schedule?: string; retention?: string },
  ): Promise<{ created: Project[]; refused: { seed: string; reason: string }[] }> {
    if (auth.projects.length > 0) {
      throw new ForbiddenError('this key is limited to some projects and cannot create new ones');
    }
    const template = input.template_project_id ? await this.get(auth, input.template_project_id) : null;
    const config = template
      ? applyConfigPatch(undefined, groupsPatch(template.config as unknown as ResolvedConfig, CONFIG_GROUPS))
      : applyConfigPatch(undefined, {});
    const refused: { seed: string; reason: string }[] = [];
    const seen = new Set<string>();
    const rows: Parameters<ProjectRepository['createMany']>[0] = [];
    for (const raw of input.seeds) {
      let url: URL;
      try {
        url = new URL(raw.trim());
      } catch {
        refused.push({ seed: raw, reason: 'not a URL' });
        continue;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        refused.push({ seed: raw, reason: 'must be an http or https URL' });
        continue;
      }
      url.hash = '';
      const guarded = this.outboundUrls(url.toString());
      if (guarded) {
        refused.push({ seed: raw, reason: guarded });
        continue;
      }
      if (seen.has(url.toString())) {
        refused.push({ seed: raw, reason: 'listed twice in this batch' });
        continue;
      }
      seen.add(url.toString());
      rows.push({
        workspaceId: auth.workspaceId,
        name: url.hostname,
        seed: url.toString(),
        host: url.hostname,
        schedule: input.schedule ?? template?.schedule ?? 'manual',
        retention: input.retention ?? template?.retention ?? '90d',
        config: config as object,
        configVersion: 1,
      });
    }
    return { created: await this.projects.createMany(rows), refused };
  }

  /**
   * Copies groups of this project's saved config onto other projects (site-bound keys stay each
   * target's own). A target whose config already matches keeps its version.
   */
  async applyConfig(
    auth: AuthContext,
    sourceId: string,
    input: { project_ids: string[]; groups: (ConfigGroup | 'all')[] },
  ): Promise<{
    applied: { projectId: string; version: number; changed: boolean }[];
    refused: { projectId: string; reason: string }[];
  }> {
    const source = await this.get(auth, sourceId);
    const groups = input.groups.includes('all') ? CONFIG_GROUPS : (input.groups as ConfigGroup[]);
    const patch = groupsPatch(source.config as unknown as ResolvedConfig, groups);
    const applied: { projectId: string; version: number; changed: boolean }[] = [];
    const refused: { projectId: string; reason: string }[] = [];
    for (const id of [...new Set(input.project_ids)]) {
      if (id === sourceId) {
        refused.push({ projectId: id, reason: 'the source itself' });
        continue;
      }
      const target = canSeeProject(auth, id) ? await this.projects.find(auth.workspaceId, id) : null;
      if (!target) {
        refused.push({ projectId: id, reason: 'no such project' });
        continue;
      }
      const targetConfig = target.config as unknown as ResolvedConfig;
      const saved = saveConfig(
        { config: targetConfig, version: target.configVersion },
        patch.headers ? { ...patch, headers: this.headers.reuse(patch.headers, targetConfig.fetch?.headers) } : patch,
      );
      if (saved.changed)
        await this.projects.update(id, { config: saved.config as object, configVersion: saved.version });
      applied.push({ projectId: id, version: saved.version, changed: saved.changed });
    }
    return { applied, refused };
  }

  /**
   * Seals fetch.headers values stored in the clear before sealing began (the version stays: the
   * values are the same). Safe with several gateways at once: a config is replaced only if
   * nobody changed it meanwhile. Answers how many projects it sealed.
   */
  async sealStoredHeaders(): Promise<number> {
    let sealed = 0;
    for (const row of await this.projects.withHeaders()) {
      const config = row.config as unknown as ResolvedConfig;
      const headers = config.fetch.headers;
      if (Object.values(headers).every(isSealedValue)) continue;
      const after = {
        ...config,
        fetch: {
          ...config.fetch,
          headers: Object.fromEntries(
            Object.entries(headers).map(([k, v]) => [k, isSealedValue(v) ? v : this.headers.sealStored(v)]),
          ),
        },
      };
      if (await this.projects.replaceConfig(row.id, row.config, after)) sealed++;
    }
    return sealed;
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    if (!canSeeProject(auth, id) || !(await this.projects.delete(auth.workspaceId, id))) {
      throw new NotFoundError('project');
    }
  }
}
