// The web server alone (the image runs this); `pnpm start` runs it inside the local fleet.
import { startTelemetry } from '@tidemark/telemetry';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

startTelemetry('web');
const app = buildApp(loadConfig());
const { url } = await app.start();
process.stdout.write(`Tidemark web app: ${url}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.stop().then(() => process.exit(0)));
