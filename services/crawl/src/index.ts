// The public face of the crawl service for the local launcher (deploy/local); other services
// reach it only over gRPC and NATS.
export { buildApp, type CrawlApp } from './app.js';
export { loadConfig, type Config } from './config.js';
