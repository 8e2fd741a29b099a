/** Reading a RedisStore's stream entries (skipping what is not an event) and typing the errors its replies carry. */
import { StoreError, StoreGarbageError } from "../../src/errors.js";
import { feedbackEventProblem } from "../../src/learning/event-check.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import type { ParsedEntry } from "./redis-follow.js";
import type { RedisParsedOptions } from "./redis-options.js";
import type { storeKeys } from "./redis-scripts.js";

/** What `RedisStore.status()` reports. */
export interface RedisStoreStatus {
  /** The store's generation id (a new one after a wiped store was republished). */
  readonly generation: string;
  /** The last sequence number this process knows of (stored by it, loaded, or delivered by the stream). */
  readonly seq: number;
  /** The last sequence number the stream delivered to this process's followers (a router applies them). */
  readonly appliedSeq: number;
  /** Stream entries skipped as malformed (not JSON, or not a valid event). */
  readonly skippedEntries: number;
  /** Wiped stores noticed and survived. */
  readonly wipes: number;
  /** Events buffered while Redis was unreachable. */
  readonly buffered: number;
}

export type Entry = [string, string[]];

/** A stream entry as an event, or why it is not one (not JSON, not a valid event, no `e` field). */
export function parseEntry([id, fields]: Entry, itemBounds: RedisParsedOptions["itemBounds"]): ParsedEntry {
  const seq = Number(id.slice(id.indexOf("-") + 1));
  const at = Array.isArray(fields) ? fields.indexOf("e") : -1;
  if (at < 0 || typeof fields[at + 1] !== "string") return { seq, problem: "no event field" };
  let value: unknown;
  try {
    value = JSON.parse(fields[at + 1]!);
  } catch {
    return { seq, problem: "not JSON" };
  }
  const problem = feedbackEventProblem(value, itemBounds ? { itemBounds } : {});
  if (problem) return { seq, problem: `${problem.path ? `${problem.path}: ` : ""}${problem.message}` };
  return { seq, event: value as FeedbackEvent };
}

/** A Redis reply refusing a command, as a typed error: garbage under the keys (WRONGTYPE, not a number) or a StoreError. */
export function refusal(error: unknown, keys: ReturnType<typeof storeKeys>, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = (error as Error)?.message ?? String(error);
  if (/WRONGTYPE|not an integer|not a valid float|ERR.*(stream|XADD|ID)/i.test(message)) {
    return new StoreGarbageError(
      `Redis refused to ${what}: a key under prefix "${keys.seq.slice(0, keys.seq.lastIndexOf(":"))}" holds a value of another kind ` +
        `(${message}); something other than irt-router wrote there. Give the store a prefix of its own, or delete the prefix's keys.`,
      { path: "prefix", cause: error, details: { reply: message } },
    );
  }
  return new StoreError(`Redis refused to ${what}: ${message}`, { cause: error });
}
