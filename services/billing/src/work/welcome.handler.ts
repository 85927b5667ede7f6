import type { WorkHandler } from '@tidemark/bus';
import type { LedgerService } from '../ledger/ledger.service.js';

/** NATS in: `work.billing.welcome`, published by the gateway when it creates a workspace. */
export const welcomeHandler =
  (ledger: LedgerService): WorkHandler<'work.billing.welcome'> =>
  async (msg) => {
    await ledger.grantWelcome(msg.workspaceId);
  };
