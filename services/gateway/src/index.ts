// The public face of the gateway for the local launcher and admin CLI (deploy/local); other
// services never import it.
export { buildApp, type GatewayApp } from './app.js';
export { loadConfig, type Config } from './config.js';
export { describeApi } from './openapi/describe-api.js';
