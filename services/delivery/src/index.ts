// The public face of the delivery service for the local launcher (deploy/local); other services
// reach it only over NATS (events, and delivery.request.* for the gateway and the diff service).
export { buildApp, EVENTS_DURABLE, type DeliveryApp, type DeliveryOverrides } from './app.js';
export { loadConfig, type Config } from './config.js';
