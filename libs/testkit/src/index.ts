export * from './infra.js';
export * from './test-database.js';
export * from './test-web.js';
export { treeSite } from './crawl-site.js';
export * from './map-site.js';
