/**
 * Reading a RedisStore's stream entries (skipping what is not an event; the stream in pages) and typing the errors its
 * replies carry.
 */
import type { Redis } from "ioredis";
import { StoreError, StoreGarbageError } from "../../src/errors.js";
import { feedbackEventProblem } from "../../src/learning/event-check.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import type { ParsedEntry } from "./redis-follow.js";
import type { RedisParsedOptions } from "./redis-options.js";
import type { LoadResult } from "../../src/learning/store.js";
import { garbage } from "./redis-garbage.js";
import { LOAD, LOAD_PAGE, runScript, type storeKeys } from "./redis-scripts.js";

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

/**
 * The snapshot and (when `withEvents`) the stream after it, read in pages of {@link LOAD_PAGE} entries: the first with
 * the snapshot in one script (so they match), the rest with XRANGE ... COUNT from the last entry read. `"trimmed"`
 * when a later page starts past the next entry (two snapshots trimmed the stream between the reads): read again.
 */
export async function readStorePages(
  client: Redis,
  k: ReturnType<typeof storeKeys>,
  withEvents: boolean,
  parse: (page: readonly Entry[]) => readonly { event: FeedbackEvent }[],
): Promise<LoadResult | "trimmed"> {
  let reply: [string | null, number, number, Entry[]];
  try {
    reply = (await runScript(
      client,
      LOAD,
      [k.snapshot, k.snapshotSeq, k.seq, k.events],
      [withEvents ? LOAD_PAGE : 1],
    )) as typeof reply;
  } catch (error) {
    throw refusal(error, k, "load the store");
  }
  const [snap, snapshotSeq, seq, first] = reply;
  if (typeof seq !== "number") throw garbage(k.seq, "an integer (the last sequence number)", seq);
  if (typeof snapshotSeq !== "number") throw garbage(k.snapshotSeq, "an integer (a sequence number)", snapshotSeq);
  let state: unknown;
  if (snap !== null) {
    try {
      state = JSON.parse(snap);
    } catch {
      throw garbage(k.snapshot, "a learner state (JSON)", snap);
    }
  }
  const events: FeedbackEvent[] = [];
  let last = seq;
  if (withEvents) {
    let page = first;
    let expected = 0;
    while (page.length > 0) {
      if (page !== first && page[0]![0].startsWith("0-") && entrySeq(page[0]!) > expected) return "trimmed";
      for (const e of parse(page)) events.push(e.event);
      const end = entrySeq(page[page.length - 1]!);
      last = Math.max(last, end);
      expected = end + 1;
      if (page.length < LOAD_PAGE) break;
      try {
        page = (await client.xrange(k.events, `(0-${end}`, "+", "COUNT", LOAD_PAGE)) as Entry[];
      } catch (error) {
        throw refusal(error, k, "load the store");
      }
    }
  }
  return { snapshot: snap === null ? undefined : { seq: snapshotSeq, state }, events, seq: last };
}

/** The sequence number of a stream entry (its id `0-<seq>`). */
function entrySeq([id]: Entry): number {
  return Number(id.slice(id.indexOf("-") + 1));
}
