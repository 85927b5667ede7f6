import type { ConnectionTestView, ConnectionView } from '@tidemark/contracts';
import type { Connection } from '@tidemark/db';
import { NotFoundError, ValidationError } from '@tidemark/errors';
import type { SecretBox } from '@tidemark/secret-box';
import type { ChatCompletionsClient } from '../digest/chat-completions.client.js';
import type { ConnectionRepository } from '../repositories/connection.repository.js';
import { checkConfig, checkSecrets, providerOf } from './providers.js';

/** A connection ready to call: its config and opened secrets (never leaves this service). */
export interface OpenConnection {
  id: string;
  workspaceId: string;
  provider: string;
  config: Record<string, string>;
  secrets: Record<string, string>;
}

const NAME_MAX = 200;

export const presentConnection = (c: Connection, secretNames: string[]): ConnectionView => ({
  id: c.id,
  provider: c.provider,
  name: c.name,
  config: c.config as Record<string, unknown>,
  secrets: secretNames,
  lastTest:
    c.lastTestAt && c.lastTestOk !== null
      ? { at: c.lastTestAt.toISOString(), ok: c.lastTestOk, error: c.lastTestError }
      : null,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

const checkName = (name: string) => {
  const n = name.trim();
  if (!n || n.length > NAME_MAX) throw new ValidationError(`body.name: 1 to ${NAME_MAX} characters`);
  return n;
};

/** Workspace connections: config in the clear, secrets sealed (AES-256-GCM), names only shown. */
export class ConnectionService {
  constructor(
    private readonly repo: ConnectionRepository,
    private readonly box: SecretBox,
    private readonly models: ChatCompletionsClient,
  ) {}

  private secretsOf(c: Connection): Record<string, string> {
    return JSON.parse(this.box.open(c.secrets)) as Record<string, string>;
  }

  private view(c: Connection): ConnectionView {
    return presentConnection(c, Object.keys(this.secretsOf(c)).sort());
  }

  async create(input: {
    workspaceId: string;
    provider: string;
    name: string;
    config: Record<string, unknown>;
    secrets: Record<string, string>;
  }): Promise<ConnectionView> {
    const p = providerOf(input.provider);
    const c = await this.repo.create({
      workspaceId: input.workspaceId,
      provider: p.provider,
      name: checkName(input.name),
      config: checkConfig(p, input.config),
      secrets: this.box.seal(JSON.stringify(checkSecrets(p, input.secrets, false))),
    });
    return this.view(c);
  }

  async get(workspaceId: string, id: string): Promise<ConnectionView> {
    return this.view(await this.find(workspaceId, id));
  }

  async list(workspaceId: string): Promise<ConnectionView[]> {
    return (await this.repo.list(workspaceId)).map((c) => this.view(c));
  }

  /** A partial change: config fields given replace theirs; secrets given replace theirs, an empty one removes it. */
  async update(input: {
    workspaceId: string;
    connectionId: string;
    name?: string;
    config?: Record<string, unknown>;
    secrets?: Record<string, string>;
  }): Promise<ConnectionView> {
    const c = await this.find(input.workspaceId, input.connectionId);
    const p = providerOf(c.provider);
    const data: Record<string, unknown> = {};
    if (input.name !== undefined) data.name = checkName(input.name);
    if (input.config !== undefined)
      data.config = checkConfig(p, { ...(c.config as Record<string, unknown>), ...input.config });
    if (input.secrets !== undefined) {
      const merged = { ...this.secretsOf(c), ...checkSecrets(p, input.secrets, true) };
      for (const [k, v] of Object.entries(merged)) if (v === '') delete merged[k];
      data.secrets = this.box.seal(JSON.stringify(checkSecrets(p, merged, false)));
    }
    if (Object.keys(data).length === 0) return this.view(c);
    return this.view(await this.repo.update(c.id, data));
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(workspaceId, id))) throw new NotFoundError('connection');
  }

  /** The connection with its secrets opened, for a call. */
  async open(workspaceId: string, id: string): Promise<OpenConnection> {
    const c = await this.find(workspaceId, id);
    return {
      id: c.id,
      workspaceId: c.workspaceId,
      provider: c.provider,
      config: c.config as Record<string, string>,
      secrets: this.secretsOf(c),
    };
  }

  /** One tiny completion: does the endpoint answer with this key and model? Tokens are recorded. */
  async test(workspaceId: string, id: string): Promise<ConnectionTestView> {
    const c = await this.open(workspaceId, id);
    const started = performance.now();
    try {
      const answer = await this.models.complete({
        baseUrl: c.config.base_url!,
        apiKey: c.secrets.api_key,
        model: c.config.model!,
        messages: [{ role: 'user', content: 'Reply with the single word: ok' }],
        maxTokens: 5,
        json: false,
      });
      await this.repo.recordTokens({
        workspaceId,
        connectionId: id,
        purpose: 'test',
        model: answer.model,
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
      });
      await this.repo.recordTest(id, true, null);
      return { ok: true, error: null, model: answer.model, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.repo.recordTest(id, false, message);
      return { ok: false, error: message, model: null, latencyMs: Math.round(performance.now() - started) };
    }
  }

  private async find(workspaceId: string, id: string): Promise<Connection> {
    const c = await this.repo.find(workspaceId, id);
    if (!c) throw new NotFoundError('connection');
    return c;
  }
}
