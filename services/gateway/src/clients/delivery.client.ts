import { deliveryRequestSubject, type Bus } from '@tidemark/bus';
import type { DeliveryAnswers, DeliveryRequest, DeliveryRequestName } from '@tidemark/contracts';

/** Long enough for a connection test, which waits on the workspace's model endpoint. */
const SLOW_REQUESTS: Partial<Record<DeliveryRequestName, number>> = { testConnection: 70_000 };

/**
 * The delivery service as the gateway reaches it: request/reply on core NATS
 * (`delivery.request.<name>`); its errors come back as the same ApiErrors (404, 409, 422 …),
 * and no answer is 503 unavailable.
 */
export class DeliveryClient {
  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs = 10_000,
  ) {}

  call<N extends DeliveryRequestName>(name: N, req: DeliveryRequest<N>): Promise<DeliveryAnswers[N]> {
    return this.bus.request<DeliveryAnswers[N]>(
      deliveryRequestSubject(name),
      req,
      SLOW_REQUESTS[name] ?? this.timeoutMs,
    );
  }
}
