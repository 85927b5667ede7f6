// The export service: datasets of a project run streamed as files (ExportService.Stream over
// gRPC), read from the run's stored rows in keyset batches. The gateway pipes them to HTTP.
export { buildApp, type ExportApp } from './app.js';
export { loadConfig, type Config } from './config.js';
