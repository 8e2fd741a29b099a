/**
 * The run id of a Mastra request: the request context's `irtRouterRunId` when the caller set one, else a new one the
 * processor writes there (so the caller can read it after the request, for feedback).
 */
import type { RequestContext } from "@mastra/core/request-context";
import { randomUUID } from "node:crypto";
import { ValidationError } from "../errors.js";

/** The request context key holding the run id the processor routes and records under (set it, or read it after). */
export const MASTRA_RUN_ID_KEY = "irtRouterRunId";

/** How a value that is not a run id reads in the error: its type, and the value when it is short. */
function described(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "an empty string";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return `the ${typeof value} ${String(value)}`;
  }
  return Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}

/**
 * The request's run id. A value the caller set is used as it is when it is a non-empty string, and is never
 * replaced: any other value (a number, an empty string, an object) throws a {@link ValidationError} naming the key.
 * With no value (or no request context) a new id is made and written to the context.
 */
export function runIdOf(context: RequestContext | undefined): string {
  const given: unknown = context?.get(MASTRA_RUN_ID_KEY);
  if (typeof given === "string" && given.length > 0) return given;
  if (given !== undefined) {
    throw new ValidationError(
      `${MASTRA_RUN_ID_KEY} in the request context must be a non-empty string, got ${described(given)}. ` +
        `Set it to a string (e.g. String(id)), or leave it unset and the processor sets one.`,
      { path: MASTRA_RUN_ID_KEY },
    );
  }
  const runId = randomUUID();
  context?.set(MASTRA_RUN_ID_KEY, runId);
  return runId;
}
