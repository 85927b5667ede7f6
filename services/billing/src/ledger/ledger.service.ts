import { WELCOME_CREDITS } from '@tidemark/contracts';
import { NotFoundError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { LedgerRepository } from '../repositories/ledger.repository.js';
import type { WorkspaceReadRepository } from '../repositories/workspace.repository.js';

export interface Balance {
  workspaceId: string;
  granted: number;
  used: number;
  remaining: number;
  plan: string;
}

const WELCOME_REFERENCE = 'welcome';

export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly workspaces: WorkspaceReadRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * Grants the one-time welcome credits. Idempotent: the message that asks for it may arrive
   * twice (a worker died before acking), and Balance grants it too if the message is late.
   */
  async grantWelcome(workspaceId: string): Promise<boolean> {
    if ((await this.workspaces.plan(workspaceId)) === null) throw new NotFoundError('workspace');
    const granted = await this.ledger.appendOnce({
      workspaceId,
      kind: 'grant',
      reason: 'welcome',
      credits: WELCOME_CREDITS,
      reference: WELCOME_REFERENCE,
    });
    if (granted) this.logger.info({ workspaceId, credits: WELCOME_CREDITS }, 'welcome credits granted');
    return granted;
  }

  async balance(workspaceId: string): Promise<Balance> {
    let summary = await this.ledger.summary(workspaceId);
    if (!summary) throw new NotFoundError('workspace');
    // Safety net for a welcome message not yet handled: nobody sees a new workspace at zero.
    if (!summary.welcomed) {
      await this.grantWelcome(workspaceId);
      summary = (await this.ledger.summary(workspaceId))!;
    }
    const { granted, used, plan } = summary;
    return { workspaceId, granted, used, remaining: Math.max(0, granted - used), plan };
  }
}
