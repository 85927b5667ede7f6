import { deliveryV1 } from '@tidemark/contracts';
import { connectClient, type RpcClient } from '@tidemark/rpc';

type DeliveryRpc = RpcClient<deliveryV1.DeliveryServiceClient>;
type DeliveryMethod = Parameters<DeliveryRpc['call']>[0];

/** Long enough for a connection test, which waits on the workspace's model endpoint. */
const SLOW_CALLS: Partial<Record<DeliveryMethod, number>> = { testConnection: 70_000 };

/**
 * The delivery service as the gateway reaches it: gRPC `DeliveryService`
 * (proto/tidemark/delivery/v1/delivery.proto) with a deadline per call; its errors come back as
 * the same ApiErrors (404, 409, 422 …), and no answer is 503 unavailable. The answers are proto
 * messages: the routes turn them into REST bodies with mappers/{webhook,connection,notification}.mapper.ts.
 */
export class DeliveryClient {
  private readonly rpc: DeliveryRpc;

  constructor(
    address: string,
    private readonly deadlineMs = 10_000,
  ) {
    this.rpc = connectClient(deliveryV1.DeliveryServiceClient, address, 'delivery');
  }

  readonly call: DeliveryRpc['call'] = (method, request) =>
    this.rpc.call(method, request, SLOW_CALLS[method] ?? this.deadlineMs);

  close(): void {
    this.rpc.close();
  }
}
