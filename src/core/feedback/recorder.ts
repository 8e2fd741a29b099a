/**
 * Recording outcomes: `router.feedback()` turns an outcome for a decision or a run into feedback events, and every
 * event (of feedback or of a calibration probe) is checked against the learner, stored in the sink, applied to the
 * learner and, when the store says so, snapshotted.
 */
import type { RouteMessage } from "../contracts/route-message.js";
import { FeedbackError, IrtRouterError, snapshotNeedsReopen } from "../../errors.js";
import type { FeedbackBudgetLedger } from "../../learning/budget.js";
import type { FeedbackEvent } from "../../learning/events.js";
import { DEFAULT_ATTRIBUTION } from "../../learning/attribution.js";
import type { DecisionLog, LoggedDecision } from "../routing/decision-log.js";
import {
  decisionEvent,
  markToolErrors,
  parseFeedbackOptions,
  runEvents,
  type FeedbackOptions,
} from "./outcome-events.js";
import {
  feedbackLimitsSchema,
  type AbilityLearner,
  type FeedbackLimits,
  type FeedbackSink,
  type RouterLogger,
  UNATTRIBUTED_SOURCE,
} from "../contracts/options.js";
import type { OnceWarnings } from "../contracts/warnings.js";
import { boundRunWeight, SourceBudget } from "./influence-limits.js";
import { NEUTRAL_FEEDBACK_ID_NAMES, type FeedbackIdNames } from "./id-names.js";

/** In-memory feedback sink used when none is configured. */
export class MemoryFeedbackSink implements FeedbackSink {
  readonly events: FeedbackEvent[] = [];
  append(events: readonly FeedbackEvent[]): void {
    this.events.push(...events);
  }
}

/** How {@link FeedbackRecorder.record} is called: `checked` when the caller has just run `learner.check` itself. */
export interface RecordOptions {
  onStored?: () => void;
  checked?: boolean;
}

/** Turns outcomes into events and records them (see {@link FeedbackRecorder.feedback}, {@link FeedbackRecorder.record}). */
export class FeedbackRecorder {
  /** The tail of the sink writes in flight: {@link FeedbackRecorder.record} runs one batch at a time. */
  private recording: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: DecisionLog,
    readonly sink: FeedbackSink,
    /**
     * The learner outcomes are applied to (called when an outcome is recorded: an in-memory learner starts then, once
     * its module has loaded, hence the promise).
     */
    private readonly learnerFor: () => AbilityLearner | undefined | Promise<AbilityLearner | undefined>,
    private readonly logger: RouterLogger,
    private readonly warnings: OnceWarnings,
    private readonly limits: FeedbackLimits = feedbackLimitsSchema.parse({}),
    ledger?: FeedbackBudgetLedger,
    /** Where the face's callers find the ids feedback takes, for the messages that refuse one. */
    private readonly idNames: FeedbackIdNames = NEUTRAL_FEEDBACK_ID_NAMES,
  ) {
    this.budget = new SourceBudget(limits.sourceBudget, ledger);
  }

  private readonly budget: SourceBudget;

  /**
   * Record an observed outcome for one decision (by decision id) or for the answered decisions of a run (by run id,
   * spread over its steps as `options.attribution` says), as {@link FeedbackEvent}s written to the sink. Returns the
   * events written.
   */
  async feedback(
    idOrRunId: string,
    outcome: boolean | number,
    givenOptions: FeedbackOptions | null = {},
  ): Promise<FeedbackEvent[]> {
    const options = parseFeedbackOptions(givenOptions);
    const y = checkedOutcome(idOrRunId, outcome, this.idNames);
    if (this.log.shared) {
      await this.log
        .hydrate(idOrRunId)
        .catch((error: unknown) =>
          this.warnings.warn(
            "shared-log-read",
            `irt-router: the shared decision log is unreachable (${(error as Error)?.message ?? String(error)}); feedback uses this process's decisions.`,
          ),
        );
    }
    const single = this.log.get(idOrRunId);
    if (single && options.attribution !== undefined) {
      throw new FeedbackError(
        `options.attribution spreads a run's outcome over its steps; "${idOrRunId}" is a decision id, which takes the outcome as given. ` +
          `Pass ${this.idNames.runId} to attribute, or leave attribution out.`,
        { path: "options.attribution" },
      );
    }
    const answered = this.claimable(idOrRunId, single);
    // Claimed before the first await, so a concurrent feedback() for the same decision is refused; released if the
    // outcome is not stored (the same call can then be retried).
    for (const t of answered) t.feedbackGiven = true;
    let stored = false;
    try {
      const at = Date.now();
      // An outcome without an explicit source is unauthenticated: it is charged to the one shared default source and
      // its weight scaled by `unattributedWeight`, so a handful of them cannot move a catalogued model far (a run id
      // as the source would give every run a fresh budget; docs/online.md, "Threat model").
      const source = options.source ?? UNATTRIBUTED_SOURCE;
      const factor = options.source === undefined ? this.limits.unattributedWeight : 1;
      const events = this.boundedEvents(idOrRunId, single, answered, y, options, at).map((e) => ({
        ...e,
        ...(factor !== 1 ? { weight: (e.weight ?? 1) * factor } : {}),
        source,
      }));
      const total = events.reduce((sum, e) => sum + (e.weight ?? 1), 0);
      // Reserved atomically before the events are stored (concurrent calls cannot overspend); given back if not stored.
      const release = await this.budget.reserve(source, total, at);
      try {
        await this.record(events, { onStored: () => (stored = true) });
      } catch (error) {
        if (!stored) await release().catch(() => undefined);
        throw error;
      }
      return events;
    } catch (error) {
      if (!stored) for (const t of answered) t.feedbackGiven = false;
      throw error;
    }
  }

  /** The events of one outcome: a decision's as given; a run's attributed, their total weight bounded by `maxRunWeight`. */
  private boundedEvents(
    idOrRunId: string,
    single: LoggedDecision | undefined,
    answered: readonly LoggedDecision[],
    y: number,
    options: ReturnType<typeof parseFeedbackOptions>,
    at: number,
  ): FeedbackEvent[] {
    const weight = options.weight ?? 1;
    if (single) return [decisionEvent(single, y, weight, at)];
    const events = runEvents(idOrRunId, answered, y, weight, at, options.attribution);
    // Under "posterior" a run's total weight depends on its outcome; bound it by what a success would give (one per step).
    const mode = (options.attribution ?? DEFAULT_ATTRIBUTION).mode;
    const capacity = mode === "posterior" ? answered.length * weight : undefined;
    return boundRunWeight(events, this.limits.maxRunWeight, capacity);
  }

  /** The answered decisions an outcome for `idOrRunId` credits, none of which has an outcome yet; else a FeedbackError. */
  private claimable(idOrRunId: string, single: LoggedDecision | undefined): LoggedDecision[] {
    const targets = single ? [single] : this.log.ofRun(idOrRunId);
    if (targets.length === 0) {
      throw new FeedbackError(
        `No decision or run with id "${idOrRunId}" (the router keeps the last ${this.log.capacity} decisions). ` +
          `Use ${this.idNames.decisionId}, or ${this.idNames.runId}.`,
        { path: "id", details: { id: idOrRunId } },
      );
    }
    const answered = targets.filter((t) => t.decision.attempts.some((a) => a.ok));
    if (answered.length === 0) {
      throw new FeedbackError(
        `"${idOrRunId}" has no answered call (every attempt failed), so there is no model to credit.`,
        {
          path: "id",
        },
      );
    }
    const repeated = answered.filter((t) => t.feedbackGiven);
    if (repeated.length > 0) {
      throw new FeedbackError(
        `Decision(s) ${repeated.map((t) => t.decision.decisionId).join(", ")} already has an outcome (recorded, or being recorded by a concurrent ` +
          `feedback() call); each decision takes one outcome.`,
        { path: "id", details: { duplicate: repeated.map((t) => t.decision.decisionId) } },
      );
    }
    return answered;
  }

  /**
   * Notes which logged decisions' tool calls failed, from the conversation a routed call receives (see
   * {@link markToolErrors}); `feedback(runId, y, { attribution: { toolErrorsAsFailures: true } })` reads it.
   */
  noteToolErrors(messages: readonly RouteMessage[]): void {
    markToolErrors(this.log, messages);
  }

  /**
   * Records feedback events (of `feedback()` or of a calibration probe), one batch at a time: checks them against the
   * learner (an event it would refuse is never stored: every replay would throw on it), writes them to the sink,
   * applies them to the learner, and, when the sink is a store that reports `snapshotDue` and the learner can export
   * its state, snapshots that state at the batch's sequence number. Serialised, so a snapshot covers exactly the
   * events stored up to it. A failed snapshot is a warning: the events are stored (the journal keeps them until a
   * later snapshot succeeds; the store still reports the snapshot due, so the next batch retries it). Throws a
   * FeedbackError when the sink fails (nothing then counts); `onStored` is called as soon as the sink has acknowledged
   * the events. `checked`: the caller has just run `learner.check` on these events (`calibrateModel` does before its
   * `onEvent`), so it is not run again: what can change meanwhile (an id applied since, the model removed since) makes
   * `observe` a no-op, not a refusal, and within the item-parameter bound no posterior the learner reaches in use turns
   * a checked update non-finite (see `learner.check`).
   */
  record(events: readonly FeedbackEvent[], options: RecordOptions = {}): Promise<void> {
    const run = this.recording.then(() => this.recordNow(events, options));
    this.recording = run.catch(() => undefined);
    return run;
  }

  private async recordNow(
    events: readonly FeedbackEvent[],
    { onStored, checked = false }: RecordOptions,
  ): Promise<void> {
    const learner = await this.learnerFor();
    if (learner?.check && !checked) for (const event of events) learner.check(event);
    let appended: unknown;
    try {
      appended = await this.sink.append(events);
    } catch (error) {
      if (error instanceof IrtRouterError) throw error;
      throw new FeedbackError(
        `The feedback sink failed to store ${events.length} event(s): ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    onStored?.();
    // An event the store already held is not applied again: after a restore from a store that keeps pseudonyms
    // (hashRunIds), the learner remembers the stored ids, not the given ones.
    const duplicates = (appended as { duplicates?: unknown } | undefined)?.duplicates;
    const held = new Set(Array.isArray(duplicates) ? (duplicates as unknown[]) : []);
    if (learner) for (const event of events) if (!held.has(event.id)) learner.observe(event);
    const due = appended as { snapshotDue?: unknown; seq?: unknown } | undefined;
    if (due?.snapshotDue === true && typeof due.seq === "number") await this.snapshot(due.seq);
  }

  /** Snapshots the learner's state at `seq` in the sink; a failure is a warning (the journal keeps the events). */
  private async snapshot(seq: number): Promise<void> {
    const { sink } = this;
    const learner = await this.learnerFor();
    const { snapshot } = sink;
    if (typeof snapshot !== "function" || typeof learner?.exportState !== "function") {
      this.warnings.warn(
        "snapshot-unsupported",
        `irt-router: the feedback sink reports a snapshot is due, but ${typeof snapshot !== "function" ? "it has no snapshot(seq, state) method" : "the router has no learner with exportState() to snapshot"}; ` +
          `its journal keeps every event and a restore replays them all. Give the router a learner (OnlineLearner), or snapshot the store yourself.`,
      );
      return;
    }
    try {
      await snapshot.call(sink, seq, learner.exportState());
    } catch (error) {
      // A store whose handle can no longer append says so (FileStore: details.reopen, after a failed journal compaction).
      const reopen = snapshotNeedsReopen(error);
      this.logger.warn(
        `irt-router: the snapshot of the learner at event ${seq} failed (${(error as Error)?.message ?? String(error)}); the feedback is stored ` +
          `in the journal all the same, ` +
          (reopen
            ? `but the store refuses further feedback until it is reopened (close it, open it again and give a router the new handle).`
            : `and the next feedback retries the snapshot.`),
      );
    }
  }
}

/** The outcome as a number in [0, 1], after checking the id and the outcome; else a FeedbackError naming which. */
function checkedOutcome(idOrRunId: unknown, outcome: unknown, names: FeedbackIdNames): number {
  if (typeof idOrRunId !== "string" || idOrRunId.length === 0) {
    throw new FeedbackError(`feedback() needs a decision id or a run id: ${names.decisionId}, or ${names.runId}.`, {
      path: "id",
    });
  }
  const y = typeof outcome === "boolean" ? (outcome ? 1 : 0) : outcome;
  if (typeof y !== "number" || !Number.isFinite(y) || y < 0 || y > 1) {
    const got = typeof outcome === "object" && outcome !== null ? "an object" : String(outcome);
    throw new FeedbackError(`outcome must be true/false or a number in [0, 1] (1 = correct), got ${got}.`, {
      path: "outcome",
    });
  }
  return y;
}
