import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { FeedbackError } from "../../src/errors.js";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner, type LearnerOptions } from "../../src/learning/learner.js";
import type { AbilityPosterior } from "../../src/learning/posterior.js";
import type { ItemParams } from "../../src/scorer/types.js";
import { quietLogger, ToyScorer } from "../langchain/helpers.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

let dir: string;
tempDirEachTest("irt-restore-", (d) => (dir = d));

const fake = () => new FakeListChatModel({ responses: ["ok"] });

function expectSamePosterior(x: AbilityPosterior, y: AbilityPosterior, tol = 1e-9): void {
  for (let k = 0; k < x.mean.length; k++) expect(Math.abs(x.mean[k]! - y.mean[k]!)).toBeLessThan(tol);
  for (let k = 0; k < x.covariance.length; k++) expect(Math.abs(x.covariance[k]! - y.covariance[k]!)).toBeLessThan(tol);
}

/** Like a restart: a new handle on the store directory, the learner rebuilt by the documented recipe. */
async function restart(
  known: ConstructorParameters<typeof OnlineLearner>[0],
  options: LearnerOptions,
  membership = {},
): Promise<OnlineLearner> {
  const store = await FileStore.open(dir);
  try {
    return OnlineLearner.restore(await store.load(), known, options, membership);
  } finally {
    await store.close();
  }
}

describe("a restore from the store reproduces the live learner", () => {
  it("models the router added for registered models outside the catalog (journal only, and snapshot + journal)", async () => {
    const scorer = new ToyScorer();
    const options: LearnerOptions = { explore: "thompson", forgetting: { halfLifeEvents: 20 } }; // unknownModels: "error" (default)
    const store = await FileStore.open(dir);
    const learner = new OnlineLearner(scorer.models, options);
    const router = new IrtRouter({
      models: { "brand-new-model": fake(), "gpt-4": fake() },
      scorer,
      learner,
      feedbackSink: store,
      logger: quietLogger(),
    });
    const questions = ["Name a colour.", "What is 2 + 2?", "Say hello to the world please", "Count to 3"];
    const feedbackRound = async (round: number) => {
      for (const [i, q] of questions.entries()) {
        const d = (await router.invoke(`${q} (${round})`)).response_metadata.irtRouter as RouteDecision;
        await router.feedback(d.decisionId, (i + round) % 3 !== 0);
      }
    };
    for (let round = 0; round < 5; round++) await feedbackRound(round);
    expect(learner.has("brand-new-model")).toBe(true);
    expect(learner.posterior("brand-new-model").evidence).toBeGreaterThan(0);

    // Journal only: the old recipe (new OnlineLearner(scorer.models, options) + observe) threw UNKNOWN_MODEL here.
    await store.close();
    let restored = await restart(scorer.models, options);
    for (const id of learner.models()) expectSamePosterior(restored.posterior(id), learner.posterior(id));
    expect(restored.models().sort()).toEqual(learner.models().sort());

    // Snapshot, then more feedback: snapshot + journal tail.
    const again = await FileStore.open(dir);
    const live = OnlineLearner.restore(await again.load(), scorer.models, options);
    const router2 = new IrtRouter({
      models: { "brand-new-model": fake(), "gpt-4": fake() },
      scorer,
      learner: live,
      feedbackSink: again,
      logger: quietLogger(),
    });
    await again.snapshot(again.seq, live.exportState());
    for (const [i, q] of questions.entries()) {
      const d = (await router2.invoke(`${q} (late)`)).response_metadata.irtRouter as RouteDecision;
      await router2.feedback(d.decisionId, i % 2 === 0);
    }
    await again.close();
    restored = await restart(scorer.models, options);
    for (const id of live.models()) expectSamePosterior(restored.posterior(id), live.posterior(id));
  });

  it("removed models stay removed: their journaled events remain no-ops after a reload", async () => {
    const known = [
      { id: "a", ability: [0.5, -0.2] },
      { id: "b", ability: [-0.4, 0.3] },
      { id: "c", ability: [0.1, 0.1] },
    ];
    const ev = (i: number, model: string): FeedbackEvent => ({
      id: `e${i}`,
      model,
      alpha: [Math.sin(i), Math.cos(i)],
      beta: 0.1,
      y: i % 2,
      at: i,
    });
    const store = await FileStore.open(dir);
    const live = new OnlineLearner(known);
    live.addModel("my-local");
    live.removeModel("b");
    const results: string[] = [];
    const feed = async (e: FeedbackEvent) => {
      live.check(e);
      await store.append([e]);
      results.push(live.observe(e));
    };
    for (let i = 0; i < 9; i++) await feed(ev(i, ["my-local", "b", "a"][i % 3]!));
    live.removeModel("my-local");
    for (let i = 9; i < 12; i++) await feed(ev(i, ["my-local", "a"][i % 2]!));
    expect(results.filter((r) => r === "removed-model").length).toBe(3 + 1);
    await store.close();

    // Journal without a snapshot: the removals are re-applied before the replay.
    let restored = await restart(known, {}, { removed: live.removedModels() });
    expect(restored.has("b")).toBe(false);
    expect(restored.has("my-local")).toBe(false);
    expect(restored.removedModels().sort()).toEqual(["b", "my-local"]);
    expectSamePosterior(restored.posterior("a"), live.posterior("a"));
    expect(restored.observe(ev(99, "b"))).toBe("removed-model");

    // A snapshot records the removals it covers: later events for removed models stay no-ops without `removed`.
    const again = await FileStore.open(dir);
    await again.snapshot(again.seq, live.exportState());
    const more = [ev(20, "b"), ev(21, "a"), ev(22, "my-local")];
    await again.append(more);
    for (const e of more) live.observe(e);
    await again.close();
    restored = await restart(known, {});
    expect(restored.has("b")).toBe(false);
    expect(restored.has("my-local")).toBe(false);
    expectSamePosterior(restored.posterior("a"), live.posterior("a"));
  });
});

/** A scorer whose item parameters are far outside the learner's bound (e.g. a broken artifact or tiny temperature). */
class HugeScorer extends ToyScorer {
  override async itemParams(text: string | Float32Array): Promise<ItemParams> {
    const { alpha, beta } = await super.itemParams(text);
    return { alpha: alpha.map((a) => a * 1e7), beta };
  }
}

describe("router feedback is checked against the learner before it is journaled", () => {
  it("an event the learner rejects never reaches the sink, so no replay can trip on it", async () => {
    const scorer = new HugeScorer();
    const learner = new OnlineLearner(scorer.models);
    const written: FeedbackEvent[] = [];
    // A sink that accepts anything (a queue, a database table): only the learner can refuse the event.
    const router = new IrtRouter({
      models: { "gpt-4": fake() },
      scorer,
      learner,
      feedbackSink: { append: (es) => void written.push(...es) },
      logger: quietLogger(),
    });
    const d = (await router.invoke("Name a colour.")).response_metadata.irtRouter as RouteDecision;
    const err = await router.feedback(d.decisionId, true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedbackError);
    expect((err as FeedbackError).path).toBe("event.alpha");
    expect(written).toEqual([]);
    expect(learner.posterior("gpt-4-1106-preview").evidence).toBe(0);
  });
});

describe("the router snapshots its learner when the store says one is due", () => {
  const models = () => ({ "brand-new-model": fake(), "gpt-4": fake() });
  const ask = async (router: IrtRouter, q: string) =>
    ((await router.invoke(q)).response_metadata.irtRouter as RouteDecision).decisionId;

  it("snapshots every snapshotEvery events, compacting the journal, and a restore equals the live learner", async () => {
    const scorer = new ToyScorer();
    const store = await FileStore.open(dir, { snapshotEvery: 2 });
    const learner = new OnlineLearner(scorer.models);
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: store, logger: quietLogger() });
    for (let i = 0; i < 7; i++) await router.feedback(await ask(router, `question number ${i} words`), i % 3 !== 0);
    const loaded = await store.load();
    expect(loaded.snapshot?.seq).toBe(6);
    expect(loaded.events).toHaveLength(1);
    await store.close();
    const restored = await restart(scorer.models, {});
    for (const id of learner.models()) expectSamePosterior(restored.posterior(id), learner.posterior(id));
  });

  it("stores, applies and snapshots one feedback at a time, so a snapshot never misses an event stored before it", async () => {
    const scorer = new ToyScorer();
    const store = new MemoryStore({ snapshotEvery: 2 });
    let calls = 0;
    // The first append is acknowledged last (event-loop turns, not time): unserialised, the second call's snapshot
    // (due at seq 2) would be taken before the first event was applied.
    const sink = {
      append: async (events: readonly FeedbackEvent[]) => {
        const result = await store.append(events);
        for (let turns = calls++ === 0 ? 5 : 0; turns > 0; turns--)
          await new Promise((resolve) => setImmediate(resolve));
        return result;
      },
      snapshot: (seq: number, state: unknown) => store.snapshot(seq, state),
    };
    const learner = new OnlineLearner(scorer.models);
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: sink, logger: quietLogger() });
    const ids = [await ask(router, "Name a colour."), await ask(router, "What is 2 + 2?")];
    await Promise.all([router.feedback(ids[0]!, true), router.feedback(ids[1]!, false)]);
    const loaded = await store.load();
    expect(loaded.snapshot?.seq).toBe(2);
    const restored = OnlineLearner.restore(loaded, scorer.models);
    for (const id of learner.models()) expectSamePosterior(restored.posterior(id), learner.posterior(id));
  });

  it("keeps acknowledged feedback when the snapshot fails: a warning, the journal still holds it", async () => {
    const scorer = new ToyScorer();
    const store = new MemoryStore({ snapshotEvery: 1 });
    const sink = {
      append: (events: readonly FeedbackEvent[]) => store.append(events),
      snapshot: async () => Promise.reject(new Error("disk full")),
    };
    const learner = new OnlineLearner(scorer.models);
    const logger = quietLogger();
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: sink, logger });
    const events = await router.feedback(await ask(router, "Name a colour."), true);
    expect(events).toHaveLength(1);
    expect(
      logger.messages.some((m) =>
        /snapshot of the learner at event 1 failed \(disk full\).*stored in the journal/.test(m),
      ),
    ).toBe(true);
    expect((await store.load()).events.map((e) => e.id)).toEqual([events[0]!.id]);
    expect(learner.posterior(events[0]!.model).evidence).toBeGreaterThan(0);
    await expect(router.feedback(events[0]!.decisionId!, true)).rejects.toThrow(/already has an outcome/);
  });

  it("a FileStore whose snapshot fails keeps taking feedback, and the next feedback retries the snapshot, as the warning says", async () => {
    const scorer = new ToyScorer();
    const store = await FileStore.open(dir, { snapshotEvery: 1 });
    await mkdir(join(dir, "snapshot.json")); // snapshot.json cannot be replaced while a directory is in its place
    await writeFile(join(dir, "snapshot.json", "x"), "x");
    const learner = new OnlineLearner(scorer.models);
    const logger = quietLogger();
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: store, logger });
    await router.feedback(await ask(router, "Name a colour."), true);
    expect(logger.messages.at(-1)).toMatch(
      /snapshot of the learner at event 1 failed.*stored in the journal all the same, and the next feedback retries the snapshot/,
    );
    expect(await router.feedback(await ask(router, "What is 2 + 2?"), false)).toHaveLength(1);
    expect(logger.messages.at(-1)).toMatch(/snapshot of the learner at event 2 failed/);
    await rm(join(dir, "snapshot.json"), { recursive: true });
    await router.feedback(await ask(router, "Name a planet."), true);
    expect(logger.messages.filter((m) => /snapshot of the learner/.test(m))).toHaveLength(2); // none for event 3
    const loaded = await store.load();
    expect(loaded.snapshot?.seq).toBe(3);
    expect(loaded.events).toEqual([]);
    await store.close();
    const restored = await restart(scorer.models, {});
    for (const id of learner.models()) expectSamePosterior(restored.posterior(id), learner.posterior(id));
  });

  it("a feedbackSink without a learner option: snapshots the router's in-memory learner when due", async () => {
    const store = new MemoryStore({ snapshotEvery: 1 });
    const logger = quietLogger();
    const router = new IrtRouter({ models: models(), scorer: new ToyScorer(), feedbackSink: store, logger });
    for (const q of ["Name a colour.", "What is 2 + 2?"]) await router.feedback(await ask(router, q), true);
    expect(logger.messages.filter((m) => /snapshot is due/.test(m))).toEqual([]);
    const loaded = await store.load();
    expect(loaded.snapshot?.seq).toBe(2);
    expect(loaded.events).toEqual([]);
  });

  it("warns once when a snapshot is due but the learner given cannot export its state", async () => {
    const store = new MemoryStore({ snapshotEvery: 1 });
    const logger = quietLogger();
    const scorer = new ToyScorer();
    const own = new OnlineLearner(scorer.models);
    const learner = {
      has: own.has.bind(own),
      addModel: own.addModel.bind(own),
      score: own.score.bind(own),
      observe: own.observe.bind(own),
    };
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: store, logger });
    for (const q of ["Name a colour.", "What is 2 + 2?"]) await router.feedback(await ask(router, q), true);
    expect(logger.messages.filter((m) => /snapshot is due.*no learner/.test(m))).toHaveLength(1);
    expect((await store.load()).events).toHaveLength(2);
  });

  it("router.calibrate journals, applies and snapshots each answer the same way", async () => {
    const scorer = new ToyScorer();
    const store = new MemoryStore({ snapshotEvery: 4 });
    const learner = new OnlineLearner(scorer.models);
    const router = new IrtRouter({ models: models(), scorer, learner, feedbackSink: store, logger: quietLogger() });
    const bank = {
      dataset: "synthetic",
      dim: 2,
      ids: Array.from({ length: 30 }, (_, i) => `q${i}`),
      alphas: Float32Array.from({ length: 60 }, (_, k) => 0.5 + ((k * 7) % 11) / 10),
      betas: Float32Array.from({ length: 30 }, (_, i) => -1 + i / 15),
    };
    const result = await router.calibrate("brand-new-model", {
      budget: 10,
      targetSd: 0,
      probes: bank,
      prompt: (p) => p.id,
      grade: (_r, p) => Number(p.id.length % 2),
    });
    expect(result.asked).toBe(10);
    const loaded = await store.load();
    expect(loaded.snapshot?.seq).toBe(8);
    expect(loaded.events).toHaveLength(2);
    const restored = OnlineLearner.restore(loaded, scorer.models);
    expectSamePosterior(restored.posterior("brand-new-model"), learner.posterior("brand-new-model"));
  });
});
