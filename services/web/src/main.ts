// The web server alone (the image runs this); `pnpm start` runs it inside the local fleet.
import { runService } from '@tidemark/telemetry';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const started = await runService('web', () => buildApp(loadConfig()));
if (!process.send) process.stdout.write(`Tidemark web app: ${started.url}\n`);
