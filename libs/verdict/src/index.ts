export * from './features.js';
export * from './decide.js';
