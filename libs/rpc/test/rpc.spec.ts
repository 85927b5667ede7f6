import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { billingV1 } from '@tidemark/contracts';
import { ApiError, NotFoundError, ValidationError } from '@tidemark/errors';
import { createLogger, currentRequestId, withRequestId } from '@tidemark/telemetry';
import { callUnary, listen, shutdown, unaryService } from '../src/index.js';

describe('gRPC plumbing', () => {
  const server = new grpc.Server();
  const seen: { requestId?: string; traceId?: string }[] = [];
  let client: billingV1.BillingServiceClient;

  beforeAll(async () => {
    server.addService(
      billingV1.BillingServiceService,
      unaryService<billingV1.BillingServiceServer>(
        {
          balance: async (req) => {
            seen.push({ requestId: currentRequestId(), traceId: trace.getSpanContext(context.active())?.traceId });
            if (req.workspaceId === 'missing') throw new NotFoundError('workspace');
            if (req.workspaceId === 'boom') throw new Error('database on fire');
            if (req.workspaceId === 'unicode') throw new ValidationError('the page’s html — ünïcode 🌊');
            return { workspaceId: req.workspaceId, granted: 3, used: 1, remaining: 2, plan: 'free' };
          },
          authorize: async () => Promise.reject(new ApiError('internal', 'not used here')),
          charge: async () => Promise.reject(new ApiError('internal', 'not used here')),
          authorizeMany: async () => Promise.reject(new ApiError('internal', 'not used here')),
          chargeMany: async () => Promise.reject(new ApiError('internal', 'not used here')),
          usage: async () => Promise.reject(new ApiError('internal', 'not used here')),
        },
        createLogger('test', 'silent'),
      ),
    );
    const port = await listen(server, '127.0.0.1:0');
    client = new billingV1.BillingServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await shutdown(server);
  });

  it('carries the request id and the trace context in metadata', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const span = trace.wrapSpanContext({ traceId, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
    const res = await context.with(trace.setSpan(context.active(), span), () =>
      withRequestId('req-grpc-1', () => callUnary(client, client.balance, { workspaceId: 'ws_1' }, 'billing')),
    );
    expect(res).toMatchObject({ granted: 3, remaining: 2 });
    expect(seen.at(-1)).toEqual({ requestId: 'req-grpc-1', traceId });
  });

  it('rebuilds the peer ApiError with its code', async () => {
    const err = await callUnary(client, client.balance, { workspaceId: 'missing' }, 'billing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'not_found', message: 'workspace not found', status: 404 });
  });

  it('carries an error message that is not ASCII (metadata must be)', async () => {
    await expect(callUnary(client, client.balance, { workspaceId: 'unicode' }, 'billing')).rejects.toMatchObject({
      code: 'validation',
      message: 'the page’s html — ünïcode 🌊',
    });
  });

  it('turns an unexpected failure into internal without leaking it', async () => {
    const err = (await callUnary(client, client.balance, { workspaceId: 'boom' }, 'billing').catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(err.code).toBe('internal');
    expect(err.message).not.toContain('fire');
  });

  it('answers unavailable when nobody listens', async () => {
    const dead = new billingV1.BillingServiceClient('127.0.0.1:1', grpc.credentials.createInsecure());
    const err = (await callUnary(dead, dead.balance, { workspaceId: 'x' }, 'billing', 1000).catch(
      (e: unknown) => e,
    )) as ApiError;
    dead.close();
    expect(err.code).toBe('unavailable');
  });
});
