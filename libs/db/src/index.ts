export * from './client.js';
export * from './ids.js';
export * from './storable.js';
export * from './raw-db.js';
export * from './model-columns.js';
