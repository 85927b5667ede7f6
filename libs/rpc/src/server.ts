import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { asApiError, ERROR_CODES } from '@tidemark/errors';
import { runWithIncomingContext, type Logger } from '@tidemark/telemetry';
import { ERROR_METADATA_KEY, metadataCarrier } from './metadata.js';

/** A unary method as a plain async function: request in, response out, ApiError on failure. */
export type UnaryHandler<Req, Res> = (request: Req) => Promise<Res>;

// The index signature of grpc-js's UntypedServiceImplementation is dropped: only named methods.
type UnaryImpl<T> = {
  [K in keyof T as string extends K ? never : K]: T[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? UnaryHandler<Req, Res>
    : never;
};

/**
 * JSON with every non-ASCII character escaped: metadata values must be printable ASCII, and
 * grpc-js drops a call whose error metadata is not (an apostrophe ’ in a message did that).
 */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** An error as the gRPC status the client helpers rebuild it from (an unexpected one is logged). */
const errorStatus = (err: unknown, logger: Logger, method: string): Partial<grpc.StatusObject> => {
  const apiError = asApiError(err);
  if (apiError.code === 'internal') logger.error({ err, method }, 'rpc failed');
  const md = new grpc.Metadata();
  md.set(ERROR_METADATA_KEY, asciiJson(apiError.toWire()));
  return { code: ERROR_CODES[apiError.code].grpc, details: apiError.message, metadata: md };
};

/**
 * Adapts async handlers to grpc-js: runs each inside the caller's trace context and request id,
 * and turns an ApiError into the matching gRPC status with `{code, message}` in metadata so the
 * client rebuilds the same error.
 */
export const unaryService = <T extends grpc.UntypedServiceImplementation>(impl: UnaryImpl<T>, logger: Logger): T => {
  const out: Record<string, grpc.handleUnaryCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(impl) as [string, UnaryHandler<unknown, unknown>][]) {
    out[name] = (call, callback) => {
      runWithIncomingContext(metadataCarrier(call.metadata), () => {
        handler(call.request).then(
          (res) => callback(null, res),
          (err: unknown) => callback(errorStatus(err, logger, name)),
        );
      });
    };
  }
  return out as T;
};

/**
 * A server-streaming method as an async iterable: request in, messages out in order. `signal`
 * aborts when the caller cancels or goes away; the iterable is then closed (its `finally` runs).
 */
export type StreamHandler<Req, Res> = (request: Req, signal: AbortSignal) => AsyncIterable<Res>;

/**
 * Adapts a StreamHandler to grpc-js like `unaryService` does a unary one (context in, ApiError
 * out as the closing status). The next message is asked for only once grpc-js has taken the
 * last, so a slow reader slows the producer instead of filling memory.
 */
export const serverStream =
  <Req, Res>(
    handler: StreamHandler<Req, Res>,
    logger: Logger,
    method: string,
  ): grpc.handleServerStreamingCall<Req, Res> =>
  (call) => {
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const pump = async () => {
      try {
        for await (const message of handler(call.request, abort.signal)) {
          if (abort.signal.aborted) return;
          if (!call.write(message)) await once(call, 'drain', { signal: abort.signal });
        }
        if (!abort.signal.aborted) call.end();
      } catch (err) {
        // A cancelled call has no one to tell; its abort ends up here as an AbortError.
        if (!abort.signal.aborted) call.emit('error', errorStatus(err, logger, method));
      }
    };
    runWithIncomingContext(metadataCarrier(call.metadata), () => void pump());
  };

const bind = (server: grpc.Server, address: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });

/** Tries of a bind to a port the system picks. */
const PICKED_PORT_TRIES = 5;

/**
 * Binds a server on `address` (host:port; port 0 picks one) and answers the bound port. Linux
 * may pick, for a listening socket with SO_REUSEADDR (Node sets it), a port that a connection
 * of this host already uses as its own end: the bind succeeds and the listen fails with
 * EADDRINUSE (seen once in CI, where a fleet's many loopback connections to PostgreSQL, NATS
 * and Redis hold ephemeral ports). A picked port is picked again; a port asked for is not.
 */
export const listen = async (server: grpc.Server, address: string): Promise<number> => {
  const picked = /:0$/.test(address);
  for (let tries = 1; ; tries++) {
    try {
      return await bind(server, address);
    } catch (err) {
      if (!picked || tries >= PICKED_PORT_TRIES || !/EADDRINUSE/.test((err as Error).message)) throw err;
    }
  }
};

export const shutdown = (server: grpc.Server): Promise<void> =>
  new Promise((resolve) => {
    // Give in-flight calls a moment, then cut what is left.
    const timer = setTimeout(() => server.forceShutdown(), 2_000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
