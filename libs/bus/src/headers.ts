import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { HeaderCarrier } from '@tidemark/telemetry';

/** NATS headers seen as a header carrier for trace context and request id. */
export const headerCarrier = (h: MsgHdrs): HeaderCarrier => ({
  get: (key) => (h.has(key) ? h.get(key) : undefined),
  set: (key, value) => h.set(key, value),
});

export const newHeaders = (): MsgHdrs => natsHeaders();

/** Carries an ApiError's wire form on a reply. */
export const ERROR_HEADER = 'tm-error';
