import type { Bus } from '@tidemark/bus';
import { NotFoundError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { billingV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import type { KeyCache } from '../http/key-cache.js';
import type { WorkspaceRepository } from '../repositories/workspace.repository.js';
import { displayPrefix, hashKeySecret, mintKeySecret } from './key-secret.js';

export interface CreatedWorkspace {
  workspaceId: string;
  apiKey: string;
}

export class WorkspaceService {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly billing: RpcClient<billingV1.BillingServiceClient>,
    private readonly bus: Bus,
    private readonly keyCache: KeyCache,
    private readonly logger: Logger,
  ) {}

  /**
   * A new workspace with one admin key (its secret is answered here and never again). Billing is
   * asked, durably, to grant the welcome credits; its Balance grants them too should that message
   * be late, so a new workspace never reads zero.
   */
  async create(name: string): Promise<CreatedWorkspace> {
    const apiKey = mintKeySecret();
    const ws = await this.workspaces.createWithKey(name, {
      name: 'admin',
      prefix: displayPrefix(apiKey),
      hash: hashKeySecret(apiKey),
      scopes: ['admin'],
      projects: [],
      rpm: null,
      expiresAt: null,
    });
    await this.grantWelcome(ws.id);
    this.logger.info({ workspaceId: ws.id }, 'workspace created');
    return { workspaceId: ws.id, apiKey };
  }

  /** Asks billing, durably, for a new workspace's welcome credits (at most once per workspace). */
  async grantWelcome(workspaceId: string): Promise<void> {
    try {
      await this.bus.publishWork('work.billing.welcome', { workspaceId }, { msgId: `welcome:${workspaceId}` });
    } catch (err) {
      this.logger.warn({ err, workspaceId }, 'welcome message not published; billing grants on first balance');
    }
  }

  async setMaxRpm(workspaceId: string, maxRpm: number | null): Promise<void> {
    if (!(await this.workspaces.find(workspaceId))) throw new NotFoundError('workspace');
    await this.workspaces.update(workspaceId, { maxRpm });
    // Keys carry their workspace's ceiling in the auth cache.
    this.keyCache.invalidate({ workspaceId });
  }

  async setRequireMfa(workspaceId: string, requireMfa: boolean): Promise<void> {
    await this.workspaces.update(workspaceId, { requireMfa });
    this.keyCache.invalidate({ workspaceId });
  }

  async rename(workspaceId: string, name: string): Promise<void> {
    await this.workspaces.update(workspaceId, { name });
    this.keyCache.invalidate({ workspaceId });
  }

  /** Credits from the billing service's ledger. */
  credits(workspaceId: string): Promise<billingV1.BalanceResponse> {
    return this.billing.call('balance', { workspaceId });
  }
}
