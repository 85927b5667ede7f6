import { startTelemetry } from '@tidemark/telemetry';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

startTelemetry('browser-pool');
const app = await buildApp(loadConfig());
const started = await app.start();
let stopping = false;
const stop = () => {
  if (!stopping) void app.stop().then(() => process.exit(0));
  stopping = true;
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
// Started by the local fleet in processes (deploy/local/src/process-fleet.ts): say where it
// listens, and stop when the launcher goes away (its IPC channel closes), so none outlives it.
process.send?.({ started });
process.once('disconnect', stop);
