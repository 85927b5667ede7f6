import { startTelemetry } from './sdk.js';

/** What a service's `buildApp` answers: started, it says where it listens; stopped, it is gone. */
export interface ServiceApp<Started> {
  start(): Promise<Started>;
  stop(): Promise<void>;
}

/**
 * A service's process, as every `services/<name>/src/main.ts` runs it: telemetry first, then the
 * app built and started; SIGINT or SIGTERM stops it once. Started by the local fleet in processes
 * (deploy/local/src/process-fleet.ts) it says where it listens over the IPC channel, and stops
 * when the launcher goes away (the channel closes), so none outlives it. Answers what start did.
 */
export const runService = async <Started>(
  name: string,
  build: () => ServiceApp<Started> | Promise<ServiceApp<Started>>,
): Promise<Started> => {
  startTelemetry(name);
  const app = await build();
  const started = await app.start();
  let stopping = false;
  const stop = () => {
    if (!stopping) void app.stop().then(() => process.exit(0));
    stopping = true;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
  process.send?.({ started });
  process.once('disconnect', stop);
  return started;
};
