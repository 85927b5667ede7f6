export {
  BudgetedThreadPool,
  WALL_BUDGETS,
  type BudgetedThreadPoolOptions,
  type PoolFailure,
} from './budgeted-thread-pool.js';
export { serveTasks, type TaskReply } from './serve-tasks.js';
