// The public face of the map service for the local launcher (deploy/local); other services
// reach it only over gRPC and NATS.
export { buildApp, MAP_GRPC_MESSAGE_BYTES, type MapApp, type MapOverrides } from './app.js';
export { loadConfig, type Config } from './config.js';
