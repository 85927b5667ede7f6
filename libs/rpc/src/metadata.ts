import type { Metadata } from '@grpc/grpc-js';
import type { HeaderCarrier } from '@tidemark/telemetry';

/** gRPC metadata seen as a header carrier, so telemetry can inject and extract through it. */
export const metadataCarrier = (md: Metadata): HeaderCarrier => ({
  get: (key) => {
    const v = md.get(key)[0];
    return v === undefined ? undefined : String(v);
  },
  set: (key, value) => md.set(key, value),
});

/** The metadata key that carries an ApiError's wire form beside the gRPC status. */
export const ERROR_METADATA_KEY = 'tm-error';
