// The public face of the billing service for the local launcher (deploy/local); other services
// reach billing only over gRPC and NATS.
export { buildApp, type BillingApp } from './app.js';
export { loadConfig, type Config } from './config.js';
