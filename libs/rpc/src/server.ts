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
 * Adapts async handlers to grpc-js: runs each inside the caller's trace context and request id,
 * and turns an ApiError into the matching gRPC status with `{code, message}` in metadata so the
 * client rebuilds the same error.
 */
/**
 * JSON with every non-ASCII character escaped: metadata values must be printable ASCII, and
 * grpc-js drops a call whose error metadata is not (an apostrophe ’ in a message did that).
 */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const unaryService = <T extends grpc.UntypedServiceImplementation>(impl: UnaryImpl<T>, logger: Logger): T => {
  const out: Record<string, grpc.handleUnaryCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(impl) as [string, UnaryHandler<unknown, unknown>][]) {
    out[name] = (call, callback) => {
      runWithIncomingContext(metadataCarrier(call.metadata), () => {
        handler(call.request).then(
          (res) => callback(null, res),
          (err: unknown) => {
            const apiError = asApiError(err);
            if (apiError.code === 'internal') logger.error({ err, method: name }, 'rpc failed');
            const md = new grpc.Metadata();
            md.set(ERROR_METADATA_KEY, asciiJson(apiError.toWire()));
            callback({ code: ERROR_CODES[apiError.code].grpc, details: apiError.message, metadata: md });
          },
        );
      });
    };
  }
  return out as T;
};

/** Binds a server on `address` (host:port; port 0 picks one) and answers the bound port. */
export const listen = (server: grpc.Server, address: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });

export const shutdown = (server: grpc.Server): Promise<void> =>
  new Promise((resolve) => {
    // Give in-flight calls a moment, then cut what is left.
    const timer = setTimeout(() => server.forceShutdown(), 2_000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
