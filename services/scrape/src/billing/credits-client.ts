import { fromWire } from '@tidemark/errors';
import type { billingV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';
import { CallBatcher } from '../batching/call-batcher.js';
import type { CreditsPort } from '../ladder/ladder.service.js';

/** The ladder's holds and charges, sent to billing several at a time (AuthorizeMany, ChargeMany). */
export const batchingCredits = (billing: RpcClient<billingV1.BillingServiceClient>, reason: string): CreditsPort => {
  const holds = new CallBatcher<billingV1.AuthorizeRequest, billingV1.AuthorizeOutcome>(
    async (items) => (await billing.call('authorizeMany', { items })).outcomes,
    2,
    256,
  );
  const charges = new CallBatcher<billingV1.ChargeRequest, number>(
    async (items) => (await billing.call('chargeMany', { items })).charged,
    2,
    256,
  );
  return {
    authorize: async (workspaceId, reference, credits) => {
      const outcome = await holds.call({ workspaceId, reference, credits, reason });
      if (!outcome.authorized)
        throw fromWire({
          code: outcome.errorCode,
          message: outcome.message,
          details: outcome.details ?? {},
        });
    },
    charge: async (workspaceId, reference, credits) => {
      await charges.call({ workspaceId, reference, credits, reason });
    },
  };
};
