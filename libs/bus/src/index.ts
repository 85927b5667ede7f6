export * from './bus.js';
export * from './subjects.js';
