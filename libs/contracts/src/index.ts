export * from './project-config.js';
export * from './vocabulary.js';
export * from './plans.js';
export * from './messages.js';
export * as billingV1 from './generated/tidemark/billing/v1/billing.js';
