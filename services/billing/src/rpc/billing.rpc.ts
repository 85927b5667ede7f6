import { billingV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { LedgerService } from '../ledger/ledger.service.js';

/** gRPC in: decode → ledger service → reply. Errors are mapped by @tidemark/rpc. */
export const billingRpc = (ledger: LedgerService) => ({
  balance: async (req: billingV1.BalanceRequest): Promise<billingV1.BalanceResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    return ledger.balance(req.workspaceId);
  },
});
