export { z } from 'zod';
export * from './env.js';
export * from './base-env.js';
