export { Tidemark } from './client.js';
export * from './api-types.js';
export * from './errors.js';
export {
  DEFAULT_API_URL,
  HttpClient,
  fillPath,
  type ApiResponse,
  type ClientOptions,
  type RequestOptions,
} from './http.js';
export { paginate, type Paged } from './paging.js';
export * from './retry.js';
export { ACTIVE_STATUSES, WaitTimeoutError, hasEnded, pollUntil, type WaitOptions } from './waiting.js';
export * from './webhooks.js';
