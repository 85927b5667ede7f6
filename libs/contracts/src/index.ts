export * from './project-config.js';
export * from './vocabulary.js';
export * from './plans.js';
export * from './messages.js';
export * as billingV1 from './generated/tidemark/billing/v1/billing.js';
export * as browserPoolV1 from './generated/tidemark/browserpool/v1/browser_pool.js';
export * as scrapeV1 from './generated/tidemark/scrape/v1/scrape.js';
export * from './scrape.js';
