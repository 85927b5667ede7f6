import { randomBytes } from 'node:crypto';
import { fromWire } from '@tidemark/errors';
import type { billingV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import type { Logger } from '@tidemark/telemetry';
import { CallBatcher } from '../batching/call-batcher.js';
import type { CreditPool, CreditsPort } from '../ladder/ladder.service.js';

/** Credits one block holds: a pool's units (a crawl's pages…) draw on it instead of holding one by one. */
export const BLOCK_CREDITS = 32;
/** A block nothing drew on for this long is released (its crawl ended, or moved to another worker). */
const IDLE_RELEASE_MS = 3000;
/** After the balance could not pay for a block, units of that pool hold one by one for this long. */
const LOW_BALANCE_MS = 5000;
/**
 * How long a charge drawn on a block waits for others to share its call. A crawl's page is
 * charged after its result is handed back (nothing waits on it but the ack of its message), so
 * its charges go to billing a few at a time: one call and one statement for several pages.
 */
const POOL_CHARGE_LINGER_MS = 25;

interface Block {
  workspaceId: string;
  reference: string;
  /** What may still be drawn: the block's hold less what is drawn and not yet charged. */
  left: number;
  /** Units drawn and not yet charged: the block is released only once they are. */
  outstanding: number;
  retired: boolean;
  lastDrawn: number;
  /** Its charges wait a little for company (CreditPool.chargesLinger). */
  chargesLinger: boolean;
}

/**
 * The ladder's holds and charges, sent to billing several at a time (AuthorizeMany, ChargeMany).
 * Units of one pool (a crawl's pages, a workspace's one-URL scrapes) draw on a block of credits held once under a reference of
 * its own, so a page costs billing no hold of its own, only its charge, which shrinks the block's
 * hold by what the page cost (ChargeRequest.from_hold): what the workspace has held stays what its
 * work in flight may still spend. The ledger is exact as before (one entry per page reference). A
 * block the balance cannot pay for is not taken: units then hold one by one, so a crawl stops at
 * the workspace's last credit. A worker that dies leaves its block to the hold's expiry.
 */
export class BatchingCredits implements CreditsPort {
  private readonly holds: CallBatcher<billingV1.AuthorizeRequest, billingV1.AuthorizeOutcome>;
  private readonly charges: CallBatcher<billingV1.ChargeRequest, number>;
  /** Charges drawn on a block whose charges linger for company (POOL_CHARGE_LINGER_MS). */
  private readonly poolCharges: CallBatcher<billingV1.ChargeRequest, number>;
  private readonly live = new Map<string, Block>();
  private readonly reserving = new Map<string, Promise<Block | null>>();
  private readonly lowUntil = new Map<string, number>();
  private readonly drawn = new Map<string, { block: Block; credits: number }>();
  private readonly idle = new Set<Block>();
  private readonly instance = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    billing: RpcClient<billingV1.BillingServiceClient>,
    private readonly reason: string,
    private readonly logger: Logger,
  ) {
    this.holds = new CallBatcher(async (items) => (await billing.call('authorizeMany', { items })).outcomes, 2, 256);
    const chargeMany = async (items: billingV1.ChargeRequest[]) =>
      (await billing.call('chargeMany', { items })).charged;
    this.charges = new CallBatcher(chargeMany, 2, 256);
    this.poolCharges = new CallBatcher(chargeMany, 2, 256, POOL_CHARGE_LINGER_MS);
    this.sweeper = setInterval(() => this.releaseIdle(), 1000);
    this.sweeper.unref();
  }

  async authorize(workspaceId: string, reference: string, credits: number, pool?: CreditPool): Promise<void> {
    const key = `${workspaceId}\n${pool?.id ?? ''}`;
    if (!pool || credits <= 0 || credits > BLOCK_CREDITS || (this.lowUntil.get(key) ?? 0) > Date.now())
      return this.holdOne(workspaceId, reference, credits);
    for (;;) {
      const block = this.live.get(key);
      if (block && block.left >= credits) {
        block.left -= credits;
        block.outstanding += 1;
        block.lastDrawn = Date.now();
        this.drawn.set(reference, { block, credits });
        return;
      }
      if (block) this.retire(key, block);
      let next = this.reserving.get(key);
      if (!next) {
        next = this.reserve(key, workspaceId, pool).finally(() => this.reserving.delete(key));
        this.reserving.set(key, next);
      }
      if (!(await next)) return this.holdOne(workspaceId, reference, credits);
    }
  }

  async charge(workspaceId: string, reference: string, credits: number): Promise<void> {
    const draw = this.drawn.get(reference);
    if (!draw) {
      await this.charges.call({ workspaceId, reference, credits, reason: this.reason, fromHold: '' });
      return;
    }
    this.drawn.delete(reference);
    const { block } = draw;
    try {
      const charged = await (block.chargesLinger ? this.poolCharges : this.charges).call({
        workspaceId,
        reference,
        credits,
        reason: this.reason,
        fromHold: block.reference,
      });
      // What was drawn and not charged (a rung that got no answer, a page charged before) may
      // be drawn again; a charge above the draw (metered bytes) leaves the block that much less.
      block.left = Math.max(0, block.left + draw.credits - charged);
    } finally {
      // A charge that failed may have been written: its draw is not given back.
      block.outstanding -= 1;
      if (block.retired && block.outstanding === 0) void this.release(block);
    }
  }

  /** Releases every block (the worker stops): what was not drawn goes back to the workspace. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const blocks = [...this.live.values(), ...this.idle];
    this.live.clear();
    await Promise.all(blocks.filter((b) => b.outstanding === 0).map((b) => this.release(b)));
  }

  private async holdOne(workspaceId: string, reference: string, credits: number): Promise<void> {
    const outcome = await this.holds.call({ workspaceId, reference, credits, reason: this.reason });
    if (!outcome.authorized)
      throw fromWire({ code: outcome.errorCode, message: outcome.message, details: outcome.details ?? {} });
  }

  /** A new block for the pool, or null when the balance cannot pay for one. */
  private async reserve(key: string, workspaceId: string, pool: CreditPool): Promise<Block | null> {
    const reference = `block:${pool.id}:${this.instance}:${++this.seq}`;
    const outcome = await this.holds.call({ workspaceId, reference, credits: BLOCK_CREDITS, reason: this.reason });
    if (!outcome.authorized) {
      if (outcome.errorCode !== 'credits_exhausted')
        throw fromWire({ code: outcome.errorCode, message: outcome.message, details: outcome.details ?? {} });
      this.lowUntil.set(key, Date.now() + LOW_BALANCE_MS);
      if (this.lowUntil.size > 4096) this.lowUntil.delete(this.lowUntil.keys().next().value!);
      return null;
    }
    const block: Block = {
      workspaceId,
      reference,
      left: BLOCK_CREDITS,
      outstanding: 0,
      retired: false,
      lastDrawn: Date.now(),
      chargesLinger: pool.chargesLinger === true,
    };
    this.live.set(key, block);
    return block;
  }

  /** The pool's block is used up (or idle): it is released once its drawn units are charged. */
  private retire(key: string, block: Block): void {
    if (this.live.get(key) === block) this.live.delete(key);
    block.retired = true;
    if (block.outstanding === 0) void this.release(block);
    else this.idle.add(block);
  }

  private releaseIdle(): void {
    const now = Date.now();
    for (const [key, block] of this.live)
      if (block.outstanding === 0 && now - block.lastDrawn >= IDLE_RELEASE_MS) this.retire(key, block);
  }

  /** Ends the block's hold (a charge of 0 under its own reference); its expiry ends it otherwise. */
  private async release(block: Block): Promise<void> {
    this.idle.delete(block);
    try {
      await this.charges.call({
        workspaceId: block.workspaceId,
        reference: block.reference,
        credits: 0,
        reason: this.reason,
        fromHold: '',
      });
    } catch (err) {
      this.logger.warn({ err, block: block.reference }, 'a block of credits could not be released; its hold expires');
    }
  }
}
