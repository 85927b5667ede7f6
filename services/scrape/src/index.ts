// The public face of the scrape service for the local launcher (deploy/local); other services
// reach it only over gRPC and NATS.
export { buildApp, type ScrapeApp } from './app.js';
export { loadConfig, type Config } from './config.js';
