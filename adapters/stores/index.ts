/**
 * Where feedback and learner snapshots are kept: MemoryStore (in process), FileStore (a crash-safe journal and
 * snapshots in a folder) and RedisStore (shared by many processes, with the shared decision log, spend and budgets).
 * And the run-outcome logs the run-level routers of several processes share (`router.runs.sync(log)`):
 * MemoryRunOutcomeLog, FileRunOutcomeLog and RedisRunOutcomeLog.
 */
export { MemoryStore } from "./memory.js";
export type { MemoryStoreOptions } from "./memory.js";
export { FileStore } from "./file.js";
export type { FileStoreOptions, FileStoreRecovery } from "./file.js";
export type { LockInfo } from "./lock.js";
export { RedisStore } from "./redis.js";
export type { RedisStoreOptions, RedisAppendResult, RedisStoreStatus } from "./redis.js";
export type { BudgetLimit, BudgetReservation, FeedbackBudgetLedger } from "../../src/learning/budget.js";
export { FeedbackBufferFullError, RedisConnectionError, StoreGarbageError, StoreWarning } from "../../src/errors.js";
export type { RedisConnectionCause, StoreWarningKind } from "../../src/errors.js";
export { MemoryRunOutcomeLog } from "./run-outcome-memory.js";
export type {
  RunOutcomeCursor,
  RunOutcomeLog,
  RunOutcomePage,
  SharedRunOutcome,
} from "../../src/runs/run-outcome-log.js";
export { FileRunOutcomeLog } from "./run-outcome-file.js";
export type { FileRunOutcomeLogOptions } from "./run-outcome-file.js";
export { RedisRunOutcomeLog } from "./run-outcome-redis.js";
export type { RedisRunOutcomeLogOptions } from "./run-outcome-redis.js";
