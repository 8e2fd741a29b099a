/**
 * What the run-outcome logs share: checking a batch before it is written (one JSON text per outcome) and their cursors,
 * `<log id>:<position>`, where the log id names one incarnation of a log (a log wiped and made again has a new one).
 */
import { z } from "zod";
import { ValidationError } from "../../src/errors.js";
import { sharedRunOutcomeSchema, type SharedRunOutcome } from "../../src/runs/run-outcome-log.js";
import { parseWith } from "../../src/util/validate.js";

const batchSchema = z.array(sharedRunOutcomeSchema);

/** The JSON text of each outcome, checked (a `ValidationError` naming the field, e.g. `outcomes.3.weight`). */
export function outcomeLines(outcomes: readonly SharedRunOutcome[]): string[] {
  return parseWith(batchSchema, outcomes, "outcomes").map((o) => JSON.stringify(o));
}

/** The cursor after `position` in the log `logId`. */
export function cursorOf(logId: string, position: number): string {
  return `${logId}:${position}`;
}

/**
 * The log id and position of a cursor (undefined when absent: the start); a value that is no cursor of a run-outcome
 * log is a `ValidationError`.
 */
export function parseCursor(after: string | undefined): { log: string; position: number } | undefined {
  if (after === undefined) return undefined;
  const m = typeof after === "string" ? /^([A-Za-z0-9_.-]{1,100}):(\d{1,15})$/.exec(after) : null;
  if (!m) {
    throw new ValidationError(
      `read() takes a cursor a run-outcome log returned (as "<log id>:<position>"), or none to read from the start; got ${
        typeof after === "string" ? `"${after.slice(0, 40)}"` : typeof after
      }.`,
      { path: "after" },
    );
  }
  return { log: m[1]!, position: Number(m[2]) };
}

/**
 * The position a cursor stands for in the log `logId`: 0 (the start) when absent or made by another log (or an
 * earlier incarnation of this one); a cursor that is no cursor of a run-outcome log is a `ValidationError`.
 */
export function positionOf(after: string | undefined, logId: string): number {
  const cursor = parseCursor(after);
  return cursor?.log === logId ? cursor.position : 0;
}

/** Adds a record read from a log to its page: its JSON parsed, or, when it is not JSON, why (`at`: where it stands). */
export function takeRecord(text: string, at: string, outcomes: unknown[], unreadable: string[]): void {
  try {
    outcomes.push(JSON.parse(text));
  } catch {
    unreadable.push(`the record at ${at} is not JSON`);
  }
}
