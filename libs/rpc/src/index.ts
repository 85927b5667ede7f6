export * from './server.js';
export * from './client.js';
export * from './metadata.js';
