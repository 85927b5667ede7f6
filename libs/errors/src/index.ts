export * from './codes.js';
export * from './api-error.js';
export * from './envelope.js';
export * from './outage.js';
