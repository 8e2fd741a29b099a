import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { FileStore } from "../../../adapters/stores/file.js";
import { MemoryStore } from "../../../adapters/stores/memory.js";
import { ValidationError } from "../../../src/errors.js";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import { engineOf } from "../../../src/langchain/model/router.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });
const models = () => ({ "gpt-4": fake(), mistral: fake() });

describe("IrtRouter store option", () => {
  it("restores a learner from the store, journals and applies feedback, snapshots when due (MemoryStore)", async () => {
    const store = new MemoryStore({ snapshotEvery: 2 });
    const router = new IrtRouter({ models: models(), scorer: new ToyScorer(), store, logger: quietLogger() });
    const d1 = (await router.invoke("Name a colour.")).response_metadata.irtRouter as RouteDecision;
    const p1 = d1.candidates.find((c) => c.id === "gpt-4")!.p;
    await router.feedback(d1.decisionId, false);
    const d2 = (await router.invoke("Name a colour.")).response_metadata.irtRouter as RouteDecision;
    expect(d2.candidates.find((c) => c.id === "gpt-4")!.p).toBeLessThan(p1); // applied
    await router.feedback(d2.decisionId, false);
    const loaded = await store.load();
    expect(loaded.seq).toBe(2);
    expect(loaded.snapshot?.seq).toBe(2); // snapshotted when due
    const expected = engineOf(router).learner!.exportState!();
    expect(loaded.snapshot!.state).toEqual(expected);
  });

  it("a new router on the same FileStore starts from what the previous one learnt", async () => {
    const dir = await mkdtemp(join(tmpdir(), "irt-store-option-"));
    try {
      let store = await FileStore.open(dir);
      const first = new IrtRouter({ models: models(), scorer: new ToyScorer(), store, logger: quietLogger() });
      const d = (await first.invoke("Name a colour.")).response_metadata.irtRouter as RouteDecision;
      await first.feedback(d.decisionId, false);
      const learnt = engineOf(first).learner!.exportState!();
      await store.close();
      store = await FileStore.open(dir);
      const second = new IrtRouter({ models: models(), scorer: new ToyScorer(), store, logger: quietLogger() });
      const again = (await second.invoke("Name a colour.")).response_metadata.irtRouter as RouteDecision;
      expect(again.candidates.find((c) => c.id === "gpt-4")!.p).toBeLessThan(
        d.candidates.find((c) => c.id === "gpt-4")!.p,
      );
      expect(engineOf(second).learner!.exportState!()).toEqual(learnt);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses store together with learner or feedbackSink", () => {
    const scorer = new ToyScorer();
    expect(
      () =>
        new IrtRouter({ models: models(), scorer, store: new MemoryStore(), learner: OnlineLearner.forScorer(scorer) }),
    ).toThrow(ValidationError);
    expect(
      () => new IrtRouter({ models: models(), scorer, store: new MemoryStore(), feedbackSink: new MemoryStore() }),
    ).toThrow(/either store, or learner/);
    expect(() => new IrtRouter({ models: models(), scorer, store: {} as never })).toThrow(/options\.store|store/);
  });
});
