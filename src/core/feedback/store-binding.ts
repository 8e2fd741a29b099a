/**
 * The `store` option: a router wired to an `AbilityStore` restores its online learner from the store when the scorer
 * loads, journals feedback there, applies it, snapshots when due and, when the store is shared by several processes
 * (it can be followed), applies every process's events in the store's order, so all processes reach the same state.
 */
import { StoreError } from "../../errors.js";
import type { FeedbackEvent } from "../../learning/events.js";
import type { OnlineLearner } from "../../learning/learner.js";
import type { AppendResult } from "../../learning/store.js";
import type { Scorer } from "../../scorer/types.js";
import type { LearnerOptions, ModelStart } from "../../learning/learner-types.js";
import type { AbilityLearner, FeedbackSink, RouterLogger } from "../contracts/options.js";
import {
  isFollowable,
  type RouterStore,
  type SequencedEvent,
  type StoreSubscription,
} from "../contracts/router-store.js";
import type { OnceWarnings } from "../contracts/warnings.js";
import { loadLearnerModule } from "./memory-learning.js";

/** The learner a store-wired router uses: the store's restored `OnlineLearner` once the scorer has loaded. */
class BoundLearner implements AbilityLearner {
  constructor(private readonly binding: StoreBinding) {}
  private get inner(): OnlineLearner {
    return this.binding.current();
  }
  has(modelId: string): boolean {
    return this.inner.has(modelId);
  }
  addModel(modelId: string, start?: ModelStart): unknown {
    return this.inner.addModel(modelId, start);
  }
  score(item: { readonly alpha: ArrayLike<number>; readonly beta: number }, modelIds: readonly string[]) {
    return this.inner.score(item, modelIds);
  }
  /** A shared store's events are applied from its stream, in its order (see {@link StoreBinding}); others here. */
  observe(event: FeedbackEvent): unknown {
    return this.binding.shared ? undefined : this.inner.observe(event);
  }
  isRemoved(modelId: string): boolean {
    return this.inner.isRemoved(modelId);
  }
  check(event: FeedbackEvent): unknown {
    return this.inner.check(event);
  }
  exportState(): unknown {
    return this.inner.exportState();
  }
}

/** Connects a router to its `store` option (see the module comment). */
export class StoreBinding {
  readonly learner: AbilityLearner = new BoundLearner(this);
  readonly sink: FeedbackSink;
  readonly shared: boolean;
  private inner?: OnlineLearner;
  /** The learner's module, imported by the first restore (not with the router: issue 37, the first call). */
  private learning?: Awaited<ReturnType<typeof loadLearnerModule>>;
  private initialising?: Promise<void>;
  private scorer?: Scorer;
  /** Where the registered models that are not rows of the scorer start (their catalog priors), by learner id. */
  private starts: ReadonlyMap<string, ModelStart> = new Map();
  /** Sequence number of the last event applied to the learner. */
  private applied = 0;
  private subscription?: StoreSubscription;
  private reloading?: Promise<void>;
  private readonly waiters: { seq: number; resolve: () => void }[] = [];

  constructor(
    readonly store: RouterStore,
    private readonly logger: RouterLogger,
    private readonly warnings: OnceWarnings,
  ) {
    this.shared = isFollowable(store);
    // A shared store's snapshots are taken here (append reports none due); others' by the recorder, through the sink.
    this.sink = { append: (events) => this.append(events), snapshot: (seq, state) => store.snapshot(seq, state) };
  }

  /** The restored learner (a StoreError before the scorer has loaded: routing and feedback load it first). */
  current(): OnlineLearner {
    if (!this.inner)
      throw new StoreError(
        "The router's learner is restored from its store when the scorer loads; route a call first.",
      );
    return this.inner;
  }

  /** Sequence number of the last event the learner has applied. */
  get appliedSeq(): number {
    return this.applied;
  }

  /**
   * Restores the learner for `scorer` (once; a failure is retried by the next call) and starts following. `starts`:
   * where the registered models that are not rows of the scorer start, so a journal replays into the same priors the
   * live router gave them.
   */
  init(scorer: Scorer, starts: ReadonlyMap<string, ModelStart> = new Map()): Promise<void> {
    this.starts = starts;
    this.initialising ??= this.restore(scorer).catch((error: unknown) => {
      this.initialising = undefined;
      throw error;
    });
    return this.initialising;
  }

  private async restore(scorer: Scorer): Promise<void> {
    this.scorer = scorer;
    const [loaded, learning] = await Promise.all([this.store.load(), loadLearnerModule()]);
    this.learning = learning;
    this.inner = learning.OnlineLearner.restore(loaded, scorer.models, this.learnerOptions(scorer));
    this.applied = loaded.seq;
    if (isFollowable(this.store) && !this.subscription) {
      // A wiped store republishes what this router holds; a reset (by any process) restores every router from it.
      this.store.republishFrom?.(() => this.inner && { seq: this.applied, state: this.inner.exportState() });
      this.subscription = this.store.follow(loaded.seq, {
        events: (batch) => this.apply(batch),
        skipped: (seq) => {
          if (seq === this.applied + 1 && !this.reloading) this.applied = seq;
        },
        reset: () => this.reload(undefined),
        error: (error) =>
          this.warnings.warn(
            "store-follow",
            `irt-router: following the shared store failed (${(error as Error)?.message ?? String(error)}); routing goes on with the last ` +
              `known learner state and the follow is retried.`,
          ),
      });
    }
  }

  /** The restored learner's options: the scorer's fitted prior, and the registered models' catalog starts. */
  private learnerOptions(scorer: Scorer): LearnerOptions {
    const starts = this.starts;
    return this.learning!.OnlineLearner.optionsForScorer(scorer, { modelPriors: (id) => starts.get(id) });
  }

  /** Stops following the store (the store's `close()` stops it too). */
  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  /** Resolves once the learner has applied every event up to `seq` (events of any process). */
  async catchUp(seq: number): Promise<void> {
    if (!isFollowable(this.store)) return;
    while (this.applied < seq) {
      await this.reloading;
      const before = this.applied;
      this.apply(await this.store.eventsAfter(this.applied));
      if (this.applied === before && !this.reloading) return;
    }
  }

  /** Applies a shared store's events in sequence order; a gap (events trimmed before this process read them) reloads. */
  private apply(batch: readonly SequencedEvent[]): void {
    const learner = this.inner;
    if (!learner || this.reloading) return;
    for (const { seq, event } of batch) {
      if (seq <= this.applied) continue;
      if (seq > this.applied + 1) {
        this.reload(seq);
        return;
      }
      // As a restore does: an event for a model the learner does not track (nor removed) was for a model added by the
      // process that routed it, at its catalog start (the learner's modelPriors) or the new-model prior.
      if (!learner.has(event.model) && !learner.isRemoved(event.model)) learner.addModel(event.model);
      try {
        learner.observe(event);
      } catch (error) {
        this.warnings.warn(
          `store-apply:${event.id}`,
          `irt-router: event ${event.id} of the shared store could not be applied: ${(error as Error).message}`,
        );
      }
      this.applied = seq;
    }
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i]!.seq <= this.applied) this.waiters.splice(i, 1)[0]!.resolve();
    }
  }

  /** Restores the learner from the store: after a gap at `seenSeq`, or (undefined) after the store was reset. */
  private reload(seenSeq: number | undefined): void {
    if (seenSeq !== undefined) {
      this.logger.warn(
        `irt-router: this process fell behind the shared store (it applied event ${this.applied}, the stream now starts at ${seenSeq}); ` +
          `restoring the learner from the latest snapshot.`,
      );
    }
    this.reloading = this.store
      .load()
      .then((loaded) => {
        this.inner = this.learning!.OnlineLearner.restore(
          loaded,
          this.scorer!.models,
          this.learnerOptions(this.scorer!),
        );
        this.applied = loaded.seq;
      })
      .catch((error: unknown) =>
        this.logger.warn(`irt-router: restoring from the shared store failed: ${(error as Error).message}`),
      )
      .finally(() => {
        this.reloading = undefined;
        // Events the stream delivered while restoring were dropped: read them again.
        if (isFollowable(this.store))
          void this.store
            .eventsAfter(this.applied)
            .then((batch) => this.apply(batch))
            .catch(() => undefined);
      });
  }

  /**
   * Resolves once the learner has applied event `seq` (applied from the stream), or after `ms`. For tests and
   * benchmarks that wait for another process's feedback.
   */
  waitFor(seq: number, ms = 10_000): Promise<boolean> {
    if (this.applied >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.waiters.push({ seq, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  }

  private async append(events: readonly FeedbackEvent[]): Promise<AppendResult> {
    const result = await this.store.append(events);
    if (!this.shared) return result; // the recorder applies the events and snapshots when due
    if (result.appended > 0) await this.catchUp(result.seq);
    if (result.snapshotDue) await this.snapshot();
    return { ...result, snapshotDue: false };
  }

  /** Snapshots the learner at the last applied event; a later snapshot by another process makes it a no-op. */
  private async snapshot(): Promise<void> {
    const seq = this.applied;
    const state = this.current().exportState();
    try {
      await this.store.snapshot(seq, state);
    } catch (error) {
      if ((error as StoreError)?.details?.stale === true) return;
      this.logger.warn(
        `irt-router: the snapshot of the learner at event ${seq} failed (${(error as Error)?.message ?? String(error)}); the feedback ` +
          `is stored all the same and the next feedback retries the snapshot.`,
      );
    }
  }
}
