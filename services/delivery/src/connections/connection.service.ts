import type { ConnectionTestView, ConnectionView } from '@tidemark/contracts';
import type { Connection } from '@tidemark/db';
import { NotFoundError, ValidationError } from '@tidemark/errors';
import type { FetchGuard } from '@tidemark/net-guard';
import type { SecretBox } from '@tidemark/secret-box';
import { ModelCallError, type ChatCompletion, type ChatCompletionsClient } from '../digest/chat-completions.client.js';
import type { ConnectionRepository } from '../repositories/connection.repository.js';
import { checkConfig, checkSecrets, providerOf, type Provider } from './providers.js';

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

/**
 * The URL fields of a provider's config, refused when saved if they name an address the fetch
 * guard refuses (any spelling of a private or special address, a mapped or localhost name); a
 * name that resolves to one is refused when called.
 */
const URL_FIELDS = ['base_url'];

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
    private readonly guard: Pick<FetchGuard, 'checkUrl'>,
  ) {}

  /** checkConfig, then the fetch guard's save-time answer for each URL field (422 naming it). */
  private checkConfig(p: Provider, config: Record<string, unknown>): Record<string, unknown> {
    const out = checkConfig(p, config);
    for (const name of URL_FIELDS) {
      const refusal = typeof out[name] === 'string' ? this.guard.checkUrl(out[name]) : null;
      if (refusal) {
        const field = `body.config.${name}`;
        throw new ValidationError(`${field}: ${refusal.message}`, { fields: [{ field, message: refusal.message }] });
      }
    }
    return out;
  }

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
      config: this.checkConfig(p, input.config),
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
      data.config = this.checkConfig(p, { ...(c.config as Record<string, unknown>), ...input.config });
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

  /**
   * One tiny completion: does the endpoint answer with this key and model? Tokens are recorded.
   * The outcome is the status and a fixed reason, never the endpoint's own words.
   */
  async test(workspaceId: string, id: string): Promise<ConnectionTestView> {
    const c = await this.open(workspaceId, id);
    const model = c.config.model!;
    const started = performance.now();
    let answer: ChatCompletion;
    try {
      answer = await this.models.complete({
        baseUrl: c.config.base_url!,
        apiKey: c.secrets.api_key,
        model,
        messages: [{ role: 'user', content: 'Reply with the single word: ok' }],
        maxTokens: 5,
        json: false,
      });
    } catch (err) {
      if (!(err instanceof ModelCallError)) throw err;
      await this.repo.recordTest(id, false, err.message);
      const latencyMs = Math.round(performance.now() - started);
      return { ok: false, status: err.status, error: err.message, model: null, latencyMs };
    }
    const latencyMs = Math.round(performance.now() - started);
    await this.repo.recordTokens({
      workspaceId,
      connectionId: id,
      purpose: 'test',
      model: answer.model,
      promptTokens: answer.promptTokens,
      completionTokens: answer.completionTokens,
    });
    await this.repo.recordTest(id, true, null);
    // The configured model, not the name the endpoint gave back: nothing it says is echoed.
    return { ok: true, status: answer.status, error: null, model, latencyMs };
  }

  private async find(workspaceId: string, id: string): Promise<Connection> {
    const c = await this.repo.find(workspaceId, id);
    if (!c) throw new NotFoundError('connection');
    return c;
  }
}
