import { runService } from '@tidemark/telemetry';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

await runService('crawl', () => buildApp(loadConfig()));
