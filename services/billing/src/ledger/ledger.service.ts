import { WELCOME_CREDITS, type billingV1 } from '@tidemark/contracts';
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
   * one for work already charged) holds nothing twice. Refuses with credits_exhausted when what
   * is left, holds of other work included, cannot pay. One statement on the hot path.
   */
  async authorize(workspaceId: string, reference: string, credits: number, reason: string): Promise<void> {
    if (!reference || credits < 0) throw new ValidationError('authorize needs a reference and credits >= 0');
    const hold = { workspaceId, reference, reason, credits, ttlMs: HOLD_TTL_MS };
    if (!(await this.ledger.holdIfAffordable(hold))) {
      if (await this.ledger.hasEntry(workspaceId, reference)) return; // charged already: nothing to hold
      // Refused: the welcome grant may not be in yet (balance grants it), so look once more.
      const { remaining } = await this.balance(workspaceId);
      if (credits > remaining || !(await this.ledger.holdIfAffordable(hold))) {
        throw new ApiError('credits_exhausted', `${credits} credits needed, ${remaining} left`, {
          details: { needed: credits, remaining },
        });
      }
    }
  }

  /**
   * Authorize for several units at once: each workspace's holds in one transaction. A unit the
   * batch cannot place goes through `authorize` on its own (which may find the welcome grant
   * late, or refuses with the reason), so every answer is what `authorize` alone would give.
   */
  async authorizeMany(
    items: { workspaceId: string; reference: string; credits: number; reason: string }[],
  ): Promise<(null | ApiError)[]> {
    const outcomes: (null | ApiError)[] = items.map((item) =>
      !item.workspaceId || !item.reference || item.credits < 0
        ? new ValidationError('authorize needs a workspace, a reference and credits >= 0')
        : null,
    );
    const byWorkspace = new Map<string, number[]>();
    items.forEach((item, i) => {
      if (outcomes[i]) return;
      const indexes = byWorkspace.get(item.workspaceId);
      if (indexes) indexes.push(i);
      else byWorkspace.set(item.workspaceId, [i]);
    });
    for (const [workspaceId, indexes] of byWorkspace) {
      const holds = indexes.map((i) => ({
        reference: items[i]!.reference,
        reason: items[i]!.reason,
        credits: items[i]!.credits,
      }));
      const placed = await this.ledger.holdManyIfAffordable(workspaceId, holds, HOLD_TTL_MS);
      for (const [k, i] of indexes.entries()) {
        if (placed[k] !== 'refused') continue;
        const item = items[i]!;
        outcomes[i] = await this.authorize(workspaceId, item.reference, item.credits, item.reason).then(
          () => null,
          (err: unknown) => (err instanceof ApiError ? err : Promise.reject(err)),
        );
      }
    }
    return outcomes;
  }

  /**
   * Charge for several units in one statement; each once per reference. A unit with `fromHold`
   * was drawn from a block of credits held for many units: that hold shrinks by the charge.
   */
  async chargeMany(
    items: { workspaceId: string; reference: string; credits: number; reason: string; fromHold?: string }[],
  ): Promise<number[]> {
    if (items.some((i) => !i.workspaceId || !i.reference || i.credits < 0))
      throw new ValidationError('charge needs a workspace, a reference and credits >= 0');
    if (!items.length) return [];
    const charged = await this.ledger.chargeManyOnce(
      items.map((i) => ({
        workspaceId: i.workspaceId,
        kind: 'charge',
        reason: i.reason,
        credits: -i.credits,
        reference: i.reference,
        ...(i.fromHold ? { fromHold: i.fromHold } : {}),
      })),
    );
    return items.map((item, k) => (charged[k] ? item.credits : 0));
  }

  /**
   * Charges what the work cost and ends its hold (0 only releases it). Once per reference: a
   * retried charge changes nothing. A charge may exceed its hold (metered exit bytes).
   */
  async charge(workspaceId: string, reference: string, credits: number, reason: string): Promise<{ charged: number }> {
    if (!reference || credits < 0) throw new ValidationError('charge needs a reference and credits >= 0');
    const charged = await this.ledger.chargeOnce({ workspaceId, kind: 'charge', reason, credits: -credits, reference });
    return { charged: charged ? credits : 0 };
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

  /** Per UTC day from `sinceDay` (YYYY-MM-DD) on: credits granted, used, and used by reason. */
  async usage(workspaceId: string, sinceDay: string): Promise<billingV1.CreditDay[]> {
    const days = new Map<string, billingV1.CreditDay>();
    for (const row of await this.ledger.usageByDay(workspaceId, new Date(`${sinceDay}T00:00:00Z`))) {
      const day = days.get(row.day) ?? { day: row.day, granted: 0, used: 0, usedByReason: {} };
      if (row.kind === 'grant') day.granted += row.credits;
      else {
        // Charges are negative entries; a refund is a positive charge that gives some back.
        day.used -= row.credits;
        day.usedByReason[row.reason] = (day.usedByReason[row.reason] ?? 0) - row.credits;
      }
      days.set(row.day, day);
    }
    return [...days.values()];
  }
}
