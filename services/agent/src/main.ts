import { startTelemetry } from '@tidemark/telemetry';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

startTelemetry('agent');
const app = buildApp(loadConfig());
await app.start();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.stop().then(() => process.exit(0)));
