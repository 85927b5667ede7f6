import { billingV1 } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { LedgerService } from '../ledger/ledger.service.js';

/** gRPC in: decode → ledger service → reply. Errors are mapped by @tidemark/rpc. */
export const billingRpc = (ledger: LedgerService) => ({
  balance: async (req: billingV1.BalanceRequest): Promise<billingV1.BalanceResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    return ledger.balance(req.workspaceId);
  },
  authorize: async (req: billingV1.AuthorizeRequest): Promise<billingV1.AuthorizeResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    await ledger.authorize(req.workspaceId, req.reference, req.credits, req.reason || 'work');
    return { authorized: true };
  },
  charge: async (req: billingV1.ChargeRequest): Promise<billingV1.ChargeResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    // Drawn from a block: the block's hold shrinks (ChargeMany's rule), no hold of its own ends.
    if (req.fromHold) {
      const [charged] = await ledger.chargeMany([{ ...req, reason: req.reason || 'work' }]);
      return { charged: charged ?? 0 };
    }
    return ledger.charge(req.workspaceId, req.reference, req.credits, req.reason || 'work');
  },
  authorizeMany: async (req: billingV1.AuthorizeManyRequest): Promise<billingV1.AuthorizeManyResponse> => {
    const outcomes = await ledger.authorizeMany(req.items.map((i) => ({ ...i, reason: i.reason || 'work' })));
    return {
      outcomes: outcomes.map((err) =>
        err
          ? {
              authorized: false,
              errorCode: err.code,
              message: err.message,
              details: err.meta.details as Record<string, unknown> | undefined,
            }
          : { authorized: true, errorCode: '', message: '', details: undefined },
      ),
    };
  },
  usage: async (req: billingV1.UsageRequest): Promise<billingV1.UsageResponse> => {
    if (!req.workspaceId) throw new ValidationError('workspace_id is required');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(req.sinceDay)) throw new ValidationError('since_day must be YYYY-MM-DD');
    return { days: await ledger.usage(req.workspaceId, req.sinceDay) };
  },
  chargeMany: async (req: billingV1.ChargeManyRequest): Promise<billingV1.ChargeManyResponse> => ({
    charged: await ledger.chargeMany(req.items.map((i) => ({ ...i, reason: i.reason || 'work' }))),
  }),
});
