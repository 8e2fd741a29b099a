/**
 * Hashing of the caller-given identifiers of feedback events before a store writes them (the stores' `hashRunIds`
 * option): an application that uses an e-mail address or a user id as its run id does not find it on disk.
 */
import { createHash, createHmac } from "node:crypto";
import type { FeedbackEvent } from "./events.js";

/** The `hashRunIds` option of a store: `true` (SHA-256), a secret key (HMAC-SHA-256), or off. */
export type HashRunIds = boolean | string;

const HASHED = /^h:[0-9a-f]{32}$/;

/**
 * A function mapping a caller-given identifier to its pseudonym `h:<32 hex digits>` (the same text always gives the
 * same pseudonym, so duplicate ids still dedupe), or `undefined` when `option` is off. With `true` the pseudonym is an
 * unkeyed SHA-256: anyone who guesses an id can check the guess. With a key (at least 16 characters, kept out of the
 * store directory) it is an HMAC-SHA-256, which cannot be checked without the key. A pseudonym is never hashed again.
 *
 * @example
 * ```ts
 * const hash = idHasher("a-secret-of-16-chars-or-more")!;
 * hash("alice@example.com"); // "h:..." (32 hex digits)
 * ```
 */
export function idHasher(option: HashRunIds | undefined): ((id: string) => string) | undefined {
  if (option === undefined || option === false) return undefined;
  const digest = (id: string) =>
    (typeof option === "string" ? createHmac("sha256", option) : createHash("sha256")).update(id, "utf8").digest("hex");
  return (id) => (HASHED.test(id) ? id : `h:${digest(id).slice(0, 32)}`);
}

/**
 * The event as a store with `hashRunIds` writes it: `id`, `runId` and `source` replaced by their pseudonyms (the id
 * embeds the run id: `${runId}:${decisionId}`). Model, item parameters, outcome, weight, decision id and time are
 * kept: the learner needs them, and none of them is the caller's.
 */
export function pseudonymizeEvent(event: FeedbackEvent, hash: (id: string) => string): FeedbackEvent {
  return {
    ...event,
    id: hash(event.id),
    ...(event.runId !== undefined ? { runId: hash(event.runId) } : {}),
    ...(event.source !== undefined ? { source: hash(event.source) } : {}),
  };
}

/**
 * A learner state as a store with `hashRunIds` writes it: its remembered event ids (`seenIds`, which embed run ids)
 * replaced by their pseudonyms, so that the restored learner and the journal name events alike. Any other state is
 * returned as it is.
 */
export function pseudonymizeState(state: unknown, hash: (id: string) => string): unknown {
  const s = state as { seenIds?: unknown } | null;
  if (typeof s !== "object" || s === null || !Array.isArray(s.seenIds)) return state;
  return { ...s, seenIds: s.seenIds.map((id: unknown) => (typeof id === "string" ? hash(id) : id)) };
}
