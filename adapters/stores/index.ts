export { MemoryStore } from "./memory.js";
export type { MemoryStoreOptions } from "./memory.js";
export { FileStore } from "./file.js";
export type { FileStoreOptions, FileStoreRecovery } from "./file.js";
export type { LockInfo } from "./lock.js";
export { RedisStore, FeedbackBufferFullError } from "./redis.js";
export type { RedisStoreOptions, RedisAppendResult } from "./redis.js";
