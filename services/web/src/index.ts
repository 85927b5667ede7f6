export { buildApp, type WebApp } from './app.js';
export { loadConfig, type Config } from './config.js';
