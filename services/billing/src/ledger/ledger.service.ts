import { WELCOME_CREDITS } from '@tidemark/contracts';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import type { Logger } from '@tidemark/telemetry';
import type { LedgerRepository, LedgerSummary } from '../repositories/ledger.repository.js';
import type { WorkspaceReadRepository } from '../repositories/workspace.repository.js';

export interface Balance {
  workspaceId: string;
  granted: number;
  used: number;
  remaining: number;
  plan: string;
}

const WELCOME_REFERENCE = 'welcome';
/** A hold outlives a crashed worker by this much, then stops counting. */
const HOLD_TTL_MS = 10 * 60_000;

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
    return this.toBalance(workspaceId, summary);
  }

  /**
   * Holds `credits` for one unit of work. Idempotent per reference: a retried authorization (or
   * one for work already charged) answers authorized without holding twice. Refuses with
   * credits_exhausted when what is left, holds of other work included, cannot pay.
   */
  async authorize(
    workspaceId: string,
    reference: string,
    credits: number,
    reason: string,
  ): Promise<{ remaining: number }> {
    if (!reference || credits < 0) throw new ValidationError('authorize needs a reference and credits >= 0');
    await this.balance(workspaceId); // exists, and welcomed
    return this.ledger.withWorkspaceLock(workspaceId, async (tx) => {
      const summary = (await this.ledger.summary(workspaceId, tx))!;
      const remaining = this.toBalance(workspaceId, summary).remaining;
      if (await this.ledger.hasEntry(workspaceId, reference, tx)) return { remaining };
      const hold = await this.ledger.findHold(workspaceId, reference, tx);
      if (hold && hold.expiresAt.getTime() > Date.now()) return { remaining };
      if (hold) await this.ledger.dropHold(workspaceId, reference, tx);
      if (credits > remaining) {
        throw new ApiError('credits_exhausted', `${credits} credits needed, ${remaining} left`, {
          details: { needed: credits, remaining },
        });
      }
      await this.ledger.putHold(
        { workspaceId, reference, reason, credits, expiresAt: new Date(Date.now() + HOLD_TTL_MS) },
        tx,
      );
      return { remaining: remaining - credits };
    });
  }

  /**
   * Charges what the work cost and ends its hold (0 only releases it). Once per reference: a
   * retried charge changes nothing. A charge may exceed its hold (metered exit bytes).
   */
  async charge(
    workspaceId: string,
    reference: string,
    credits: number,
    reason: string,
  ): Promise<{ charged: number; remaining: number }> {
    if (!reference || credits < 0) throw new ValidationError('charge needs a reference and credits >= 0');
    const charged = await this.ledger.withWorkspaceLock(workspaceId, async (tx) => {
      await this.ledger.dropHold(workspaceId, reference, tx);
      if (credits === 0 || (await this.ledger.hasEntry(workspaceId, reference, tx))) return 0;
      await this.ledger.append({ workspaceId, kind: 'charge', reason, credits: -credits, reference }, tx);
      return credits;
    });
    return { charged, remaining: (await this.balance(workspaceId)).remaining };
  }

  private toBalance(workspaceId: string, s: LedgerSummary): Balance {
    return {
      workspaceId,
      granted: s.granted,
      used: s.used,
      remaining: Math.max(0, s.granted - s.used - s.held),
      plan: s.plan,
    };
  }
}
