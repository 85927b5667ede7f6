import * as grpc from '@grpc/grpc-js';
import { billingV1 } from '@tidemark/contracts';
import { callUnary } from '@tidemark/rpc';

export interface CreditBalance {
  granted: number;
  used: number;
  remaining: number;
  plan: string;
}

/** The gateway's view of the billing service: gRPC calls with deadlines, errors rebuilt. */
export class BillingClient {
  private readonly client: billingV1.BillingServiceClient;

  constructor(address: string) {
    this.client = new billingV1.BillingServiceClient(address, grpc.credentials.createInsecure());
  }

  async balance(workspaceId: string): Promise<CreditBalance> {
    const res = await callUnary(this.client, this.client.balance, { workspaceId }, 'billing');
    return { granted: res.granted, used: res.used, remaining: res.remaining, plan: res.plan };
  }

  close(): void {
    this.client.close();
  }
}
