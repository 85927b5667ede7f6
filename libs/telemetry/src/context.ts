import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** The header that carries the gateway's request id across gRPC metadata and NATS headers. */
export const REQUEST_ID_HEADER = 'x-request-id';

// Propagation works even when no exporter runs: the ids still travel so logs line up. The
// context manager makes the active span follow async calls (the SDK installs the same one).
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

interface RequestScope {
  requestId: string;
}
const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` with a request id that every outgoing call and log line below it can read. */
export const withRequestId = <T>(requestId: string, fn: () => T): T => scope.run({ requestId }, fn);
export const currentRequestId = (): string | undefined => scope.getStore()?.requestId;

/** A header map as seen by a transport: NATS MsgHdrs and gRPC Metadata both fit this. */
export interface HeaderCarrier {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

const setter: TextMapSetter<HeaderCarrier> = { set: (c, k, v) => c.set(k, v) };
const getter: TextMapGetter<HeaderCarrier> = {
  get: (c, k) => c.get(k),
  keys: () => [],
};

/** Writes the active trace context and the request id onto an outgoing message. */
export const injectContext = (carrier: HeaderCarrier): void => {
  propagation.inject(context.active(), carrier, setter);
  const requestId = currentRequestId();
  if (requestId) carrier.set(REQUEST_ID_HEADER, requestId);
};

/** Reads both back on the receiving side and runs `fn` inside them. */
export const runWithIncomingContext = <T>(carrier: HeaderCarrier, fn: () => T): T => {
  const otel: Context = propagation.extract(context.active(), carrier, getter);
  const requestId = carrier.get(REQUEST_ID_HEADER);
  const inner = () => context.with(otel, fn);
  return requestId ? withRequestId(requestId, inner) : inner();
};
