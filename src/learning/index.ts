export type { FeedbackEvent } from "./events.js";
export { assertValidFeedbackEvents, feedbackEventSchema, storeOptionsSchema, StoreLedger, toStrictJson } from "./store.js";
export type { AbilityStore, AppendResult, LoadResult } from "./store.js";
