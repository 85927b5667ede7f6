import type { browserPoolV1, EngineRung } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import type { Logger } from '@tidemark/telemetry';

/** Which rungs of the engine ladder this deployment has. */
export interface RungsPort {
  has(rung: EngineRung): Promise<boolean>;
}

/** How long the pool's answer on its exits is kept: they are configured (BROWSER_EXITS) at its start. */
const EXITS_TTL_MS = 60_000;

/**
 * The rungs of this deployment. http and the browser are part of every deployment (whether the
 * browser pool answers is found page by page: "browser tier unavailable"); browser+exit only
 * when the browser pool has residential exits configured, as its ListExits says. The pool is
 * asked only when a page would climb there, and its answer is kept for a minute; a pool that
 * cannot be asked has no exits to offer (not kept, so the next page asks again).
 */
export class DeploymentRungs implements RungsPort {
  private exits: { configured: boolean; until: number } | undefined;
  private asking: Promise<boolean> | undefined;

  constructor(
    private readonly pool: RpcClient<browserPoolV1.BrowserPoolServiceClient>,
    private readonly logger: Logger,
    private readonly ttlMs = EXITS_TTL_MS,
  ) {}

  async has(rung: EngineRung): Promise<boolean> {
    if (rung !== 'browser+exit') return true;
    if (this.exits && this.exits.until > Date.now()) return this.exits.configured;
    this.asking ??= this.askPool().finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async askPool(): Promise<boolean> {
    try {
      const res = await this.pool.call('listExits', {});
      const configured = res.exits.length > 0;
      this.exits = { configured, until: Date.now() + this.ttlMs };
      return configured;
    } catch (err) {
      this.logger.warn({ err }, 'the browser pool did not say whether it has exits; the browser+exit rung is left out');
      return false;
    }
  }
}
