import { Bus, consumeEvents } from '@tidemark/bus';
import { createLogger } from '@tidemark/telemetry';
import { TEST_INFRA } from '@tidemark/testkit';
import type { TestFleet } from './fleet.js';

export interface RecordedEvent {
  kind: string;
  data: Record<string, unknown>;
}

/**
 * Records one workspace's events from the fleet's EVENTS stream, as delivery would read them (a
 * durable consumer of its own). `seen` fills as they arrive; stop it before the fleet.
 */
export const recordEvents = async (
  t: TestFleet,
  workspaceId: string,
  name: string,
): Promise<{ seen: RecordedEvent[]; stop(): Promise<void> }> => {
  const logger = createLogger('t', 'silent');
  const bus = await Bus.connect({ url: TEST_INFRA.natsUrl, prefix: t.env.NATS_PREFIX!, name, logger });
  const seen: RecordedEvent[] = [];
  const consumer = await consumeEvents(
    bus,
    { durable: name },
    async (e) =>
      void (e.workspaceId === workspaceId && seen.push({ kind: e.kind, data: e.data as RecordedEvent['data'] })),
    logger,
  );
  return {
    seen,
    async stop() {
      await consumer.stop();
      await bus.close();
    },
  };
};
