import { randomUUID } from "node:crypto";
import { StoreError } from "../../src/errors.js";
import type { RunOutcomeLog, RunOutcomePage, SharedRunOutcome } from "../../src/runs/run-outcome-log.js";
import { cursorOf, outcomeLines, positionOf } from "./run-outcome-format.js";

/** Most records one `read` of a {@link MemoryRunOutcomeLog} returns. */
const PAGE = 1000;

/**
 * A {@link RunOutcomeLog} in process memory: for tests, and for several routers of one process. Outcomes are kept as
 * JSON copies (later changes to the caller's objects do not reach the log) and read back parsed. Nothing survives the
 * process; across processes use `FileRunOutcomeLog` or `RedisRunOutcomeLog`.
 *
 * @example
 * ```ts
 * import { MemoryRunOutcomeLog } from "irt-router/adapters";
 * const log = new MemoryRunOutcomeLog();
 * await replicaA.runs.sync(log);
 * await replicaB.runs.sync(log);
 * ```
 */
export class MemoryRunOutcomeLog implements RunOutcomeLog {
  private readonly id = randomUUID();
  private readonly lines: string[] = [];
  private closed = false;

  /** Records in the log. */
  get size(): number {
    return this.lines.length;
  }

  /** Keeps a JSON copy of each outcome, in order (a malformed one is a `ValidationError`, and nothing is kept). */
  async append(outcomes: readonly SharedRunOutcome[]): Promise<void> {
    this.ensureOpen();
    this.lines.push(...outcomeLines(outcomes));
  }

  /** Up to 1000 records after `after` (from the start when absent, or when it is another log's cursor). */
  async read(after?: string): Promise<RunOutcomePage> {
    this.ensureOpen();
    const from = Math.min(positionOf(after, this.id), this.lines.length);
    const lines = this.lines.slice(from, from + PAGE);
    return { outcomes: lines.map((l) => JSON.parse(l) as unknown), cursor: cursorOf(this.id, from + lines.length) };
  }

  /** Ends the log: further calls throw a `StoreError`. */
  async close(): Promise<void> {
    this.closed = true;
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError("This MemoryRunOutcomeLog was closed; create a new one.");
  }
}
