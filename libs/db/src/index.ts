export * from './client.js';
export * from './ids.js';
