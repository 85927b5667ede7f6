// The public face of the tool server for the local launcher and CLI (deploy/local); other
// services never import it.
export { buildApp, type AgentApp } from './app.js';
export { loadConfig, type Config } from './config.js';
export { runStdio } from './stdio.js';
export { TOOLS } from './tools/tool-server.js';
export { WRITE_TOOLS } from './tools/access.js';
export { LIMITS } from './shaping/shape.js';
