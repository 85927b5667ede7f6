import * as grpc from '@grpc/grpc-js';
import { ApiError, fromWire, UnavailableError } from '@tidemark/errors';
import { injectContext } from '@tidemark/telemetry';
import { ERROR_METADATA_KEY, metadataCarrier } from './metadata.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (err: grpc.ServiceError | null, res: Res) => void,
) => grpc.ClientUnaryCall;

const TRANSPORT_CODES = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.CANCELLED]);

/** Rebuilds the peer's ApiError; a transport failure becomes `unavailable`. */
export const errorFromStatus = (err: grpc.ServiceError, what: string): ApiError => {
  const wire = err.metadata?.get(ERROR_METADATA_KEY)[0];
  if (wire !== undefined) {
    try {
      return fromWire(JSON.parse(String(wire)));
    } catch {
      // fall through: a peer that sent garbage is treated like an unreachable one
    }
  }
  if (TRANSPORT_CODES.has(err.code)) return new UnavailableError(`${what} is unavailable`, err);
  return new ApiError('internal', `${what} failed`, { cause: err });
};

/**
 * Calls a ts-proto unary method as a promise, carrying the trace context and request id and
 * bounding it with a deadline so a stuck peer becomes a clear `unavailable`, not a hang.
 */
export const callUnary = <Req, Res>(
  client: grpc.Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  what: string,
  deadlineMs = 5_000,
): Promise<Res> =>
  new Promise((resolve, reject) => {
    const md = new grpc.Metadata();
    injectContext(metadataCarrier(md));
    method.call(client, request, md, { deadline: Date.now() + deadlineMs }, (err, res) =>
      err ? reject(errorFromStatus(err, what)) : resolve(res),
    );
  });

type StreamMethod<Req, Res> = (
  request: Req,
  metadata?: grpc.Metadata,
  options?: Partial<grpc.CallOptions>,
) => grpc.ClientReadableStream<Res>;

/** A server stream's messages, read one at a time (the next is fetched when asked for). */
export interface ServerStream<Res> extends AsyncIterable<Res> {
  /** Ends the call; the server's handler sees its signal abort. */
  cancel(): void;
}

/**
 * Calls a ts-proto server-streaming method, carrying the trace context and request id. No
 * deadline: a stream lasts as long as its reader reads; the reader cancels it instead. A failure
 * comes out of the iteration as the peer's ApiError (or `unavailable`), after the messages sent
 * before it. Leaving the iteration early cancels the call.
 */
export const callStream = <Req, Res>(
  client: grpc.Client,
  method: StreamMethod<Req, Res>,
  request: Req,
  what: string,
): ServerStream<Res> => {
  const md = new grpc.Metadata();
  injectContext(metadataCarrier(md));
  const call = method.call(client, request, md, {});
  async function* messages(): AsyncGenerator<Res> {
    try {
      for await (const message of call) yield message as Res;
    } catch (err) {
      throw errorFromStatus(err as grpc.ServiceError, what);
    } finally {
      call.cancel(); // nothing when the call already ended
    }
  }
  return { [Symbol.asyncIterator]: messages, cancel: () => call.cancel() };
};

type UnaryMethods<C> = {
  [K in keyof C as C[K] extends UnaryMethod<infer _Req, infer _Res> ? K : never]: C[K];
};
type RequestOf<M> = M extends UnaryMethod<infer Req, infer _Res> ? Req : never;
type ResponseOf<M> = M extends UnaryMethod<infer _Req, infer Res> ? Res : never;

type StreamMethods<C> = {
  [K in keyof C as C[K] extends StreamMethod<infer _Req, infer _Res> ? K : never]: C[K];
};
type StreamRequestOf<M> = M extends StreamMethod<infer Req, infer _Res> ? Req : never;
type StreamResponseOf<M> = M extends StreamMethod<infer _Req, infer Res> ? Res : never;

/** A ts-proto client whose unary methods are called as promises with a deadline. */
export interface RpcClient<C extends grpc.Client> {
  call<K extends keyof UnaryMethods<C>>(
    method: K,
    request: RequestOf<C[K]>,
    deadlineMs?: number,
  ): Promise<ResponseOf<C[K]>>;
  /** A server-streaming method (see `callStream`). */
  stream<K extends keyof StreamMethods<C>>(
    method: K,
    request: StreamRequestOf<C[K]>,
  ): ServerStream<StreamResponseOf<C[K]>>;
  close(): void;
}

/** Calls to an address naming several servers (`ipv4:a:1,b:2`) take turns, skipping any that is down. */
const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * How long a channel waits at most between attempts to reach a peer that is down: grpc-js's
 * default grows to 120 s, so after a restart (billing for a rolling upgrade) calls failed as
 * `unavailable` for up to two minutes more, with the peer already back. Between services on one
 * network an attempt every 5 s costs nothing.
 */
const RECONNECT: grpc.ClientOptions = { 'grpc.max_reconnect_backoff_ms': 5_000 };

/**
 * `options` are grpc-js channel options, e.g. `{ 'grpc.max_receive_message_length': 64 << 20 }`.
 * An `address` may name several replicas of a service (`ipv4:127.0.0.1:5001,127.0.0.1:5002`,
 * as the local fleet in processes gives): calls then go round them.
 */
export const connectClient = <C extends grpc.Client>(
  Ctor: new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C,
  address: string,
  what: string,
  options?: grpc.ClientOptions,
): RpcClient<C> => {
  const client = new Ctor(address, grpc.credentials.createInsecure(), {
    ...RECONNECT,
    ...(address.includes(',') ? { 'grpc.service_config': ROUND_ROBIN } : {}),
    ...options,
  });
  return {
    call: (method, request, deadlineMs) =>
      callUnary(
        client,
        client[method] as UnaryMethod<RequestOf<C[typeof method]>, ResponseOf<C[typeof method]>>,
        request,
        what,
        deadlineMs,
      ),
    stream: (method, request) =>
      callStream(
        client,
        client[method] as StreamMethod<StreamRequestOf<C[typeof method]>, StreamResponseOf<C[typeof method]>>,
        request,
        what,
      ),
    close: () => client.close(),
  };
};
