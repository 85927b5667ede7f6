export * from './logger.js';
export * from './context.js';
export * from './sdk.js';
export * from './service-process.js';
