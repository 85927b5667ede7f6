import { z } from 'zod';

/**
 * The bodies of NATS messages, one zod schema each. `libs/bus` binds them to subjects so a
 * publisher cannot send, and a consumer cannot accept, a message of the wrong shape.
 */
export const billingWelcomeMessage = z.object({
  workspaceId: z.string().min(1),
});
export type BillingWelcomeMessage = z.infer<typeof billingWelcomeMessage>;

export const workspaceCreatedEvent = z.object({
  workspaceId: z.string().min(1),
  name: z.string(),
  createdAt: z.string(),
});
