// deliveryV1.ConnectionProvider (DeliveryService.Providers) → GET /connections/providers;
// deliveryV1.Connection (ListConnections, GetConnection, CreateConnection, UpdateConnection) →
// GET /connections, GET/POST/PATCH /connections/{id}; deliveryV1.ConnectionTest
// (TestConnection) → POST /connections/{id}/test.
import type { ConnectionTestView, ConnectionView, deliveryV1 } from '@tidemark/contracts';
import type { connectionProviderSchema } from '@tidemark/contracts';
import type { z } from 'zod';
import { nullable, required } from './proto-values.js';

// The REST shapes are the zod schemas of libs/contracts/src/delivery.ts (connectionSchema,
// connectionProviderSchema, connectionTestSchema), whose types these functions answer.

export const connectionProviderToRest = (
  p: deliveryV1.ConnectionProvider,
): z.output<typeof connectionProviderSchema> => ({
  provider: p.provider,
  name: p.name,
  kind: p.kind,
  fields: p.fields.map((f) => ({
    name: f.name,
    required: f.required,
    ...(f.default !== undefined ? { default: f.default as unknown } : {}),
    description: f.description,
  })),
  secrets: p.secrets.map((s) => ({ name: s.name, required: s.required, description: s.description })),
  note: p.note,
  verified: p.verified,
});

export const connectionToRest = (message: deliveryV1.Connection | undefined): ConnectionView => {
  const c = required(message, 'Connection');
  return {
    id: c.id,
    provider: c.provider,
    name: c.name,
    // The provider's fields, as open as the user's values (a google.protobuf.Struct).
    config: c.config ?? {},
    secrets: c.secrets,
    lastTest: c.lastTest
      ? {
          at: required(c.lastTest.at, 'ConnectionLastTest.at').toISOString(),
          ok: c.lastTest.ok,
          error: nullable(c.lastTest.error),
        }
      : null,
    createdAt: required(c.createdAt, 'Connection.created_at').toISOString(),
    updatedAt: required(c.updatedAt, 'Connection.updated_at').toISOString(),
  };
};

export const connectionTestToRest = (message: deliveryV1.ConnectionTest | undefined): ConnectionTestView => {
  const t = required(message, 'ConnectionTest');
  return {
    ok: t.ok,
    status: nullable(t.status),
    error: nullable(t.error),
    model: nullable(t.model),
    latencyMs: t.latencyMs,
  };
};
