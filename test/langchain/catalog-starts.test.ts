import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { engineOf } from "../../src/langchain/model/router.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { placedModelPrior } from "../../src/learning/prior.js";
import { UnknownModelWarning } from "../../src/errors.js";
import { currentModels } from "../../src/scorer/model-catalog.js";
import { anonymousNames } from "../../src/runs/replay/protocol.js";
import { learnerStarts } from "../../src/core/routing/scoring-context.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { FileStore } from "../../adapters/stores/file.js";
import { loadDefaultScorer } from "../../src/core/contracts/default-scorer.js";
import { quietLogger } from "./helpers.js";
import "../../index.js"; // the package root: registers the default (pretrained) scorer loader

// A catalog model with published data, its small sibling, and a name the catalog does not know (priced).
const UNKNOWN = "acme-reasoner-7";
const HARD = "Prove that every finite group of order p^2, with p prime, is abelian.";
const fake = () => new FakeListChatModel({ responses: ["ok"] });
const models = () => ({
  "gpt-5": fake(),
  "gpt-5-mini": fake(),
  [UNKNOWN]: { model: fake(), price: { inputPer1M: 3, outputPer1M: 15 } },
});
const decisionOf = (m: { response_metadata: unknown }) =>
  (m.response_metadata as { irtRouter: RouteDecision }).irtRouter;

type Learnerish = { posterior(id: string): { priorMeanVector(): Float64Array; covariance: Float64Array } };

/**
 * Each registered model that is not a scorer row starts in `learner` at its catalog prior (or, unknown, its family and
 * price-tier prior) with that prior's uncertainty: N(ability, new-model covariance + sd^2 direction direction^T).
 */
async function expectCatalogStarts(router: IrtRouter, learner: Learnerish & OnlineLearner): Promise<void> {
  const ctx = await engineOf(router).scoring();
  expect(["published", "terminal-bench"]).toContain(ctx.priors.get("gpt-5")?.method);
  expect(ctx.priors.get(UNKNOWN)?.method).toBe("family-tier");
  for (const id of ["gpt-5", "gpt-5-mini", UNKNOWN]) {
    const prior = ctx.priors.get(id)!;
    const post = learner.posterior(id);
    const want = placedModelPrior(prior.ability, learner.newModelPrior(), {
      sd: prior.sd,
      direction: prior.direction!,
    });
    const mean = post.priorMeanVector();
    for (let k = 0; k < mean.length; k++) expect(mean[k]).toBeCloseTo(want.mean[k]!, 5);
    // not the new-model prior (the population mean the learner would otherwise use)
    const fromPopulation = Math.max(...Array.from(mean, (v, k) => Math.abs(v - learner.population.mean[k]!)));
    expect(fromPopulation).toBeGreaterThan(1e-3);
  }
}

/** A learner with no feedback yet for the new models: its posterior is the prior (covariance included). */
function expectPriorCovariance(router: IrtRouter, learner: OnlineLearner, id: string): Promise<void> {
  return engineOf(router)
    .scoring()
    .then((ctx) => {
      const prior = ctx.priors.get(id)!;
      const want = placedModelPrior(prior.ability, learner.newModelPrior(), {
        sd: prior.sd,
        direction: prior.direction!,
      });
      const got = learner.posterior(id).covariance;
      for (let k = 0; k < got.length; k += 97) expect(got[k]).toBeCloseTo(want.covariance[k]!, 6);
    });
}

describe("a router's learner starts new models from their catalog priors", () => {
  it("store-less (in-memory learner): the learner started by the first feedback keeps the catalog ranking", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({ models: models(), logger });
    const before = decisionOf(await router.invoke(HARD));
    const pOf = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)!.p;
    expect(pOf(before, "gpt-5")).toBeGreaterThan(pOf(before, "gpt-5-mini"));
    // the feedback starts the learner with the chosen model at its catalog start; the next call adds the others
    await router.feedback(before.decisionId, true, { source: "test-grader" });
    const learner = engineOf(router).learner as OnlineLearner;
    expect(learner.has(before.chosen)).toBe(true);
    const after = decisionOf(await router.invoke(HARD, { metadata: { irtRouterRunId: "r2" } }));
    await expectCatalogStarts(router, learner);
    // the learner's p keeps the catalog's order of the siblings (the new-model prior would have tied them)
    expect(pOf(after, "gpt-5")).toBeGreaterThan(pOf(after, "gpt-5-mini"));
    // the unknown name got the typed warning (once), naming its family and price-tier prior
    const warned = logger.messages.filter((m) => m.includes(UNKNOWN));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/family and price-tier/);
  });

  it("the learner option: routing adds each model at its catalog start (and warns about the unknown one)", async () => {
    const { scorer } = await loadDefaultScorer();
    const learner = OnlineLearner.forScorer(scorer);
    const warnings: unknown[] = [];
    const router = new IrtRouter({
      models: models(),
      scorer,
      learner,
      logger: { warn: (_m: string, w?: unknown) => void warnings.push(w) },
    });
    await router.invoke(HARD);
    await expectCatalogStarts(router, learner);
    await expectPriorCovariance(router, learner, "gpt-5");
    expect(warnings.some((w) => w instanceof UnknownModelWarning && w.model === UNKNOWN)).toBe(true);
  });

  it("a MemoryStore: the restored learner starts them there, and a journal replay gives the same priors", async () => {
    const store = new MemoryStore();
    const router = new IrtRouter({ models: models(), store, logger: quietLogger() });
    const d = decisionOf(await router.invoke(HARD));
    await router.feedback(d.decisionId, false, { source: "test-grader" });
    const live = engineOf(router).binding!.current();
    await expectCatalogStarts(router, live);
    // no snapshot yet: a new router replays the journal, adding the model its event names at the same start
    expect((await store.load()).snapshot).toBeUndefined();
    const again = new IrtRouter({ models: models(), store, logger: quietLogger() });
    await again.invoke(HARD);
    const restored = engineOf(again).binding!.current();
    await expectCatalogStarts(again, restored);
    const id = d.chosen;
    expect(Array.from(restored.posterior(id).mean)).toEqual(Array.from(live.posterior(id).mean));
  });

  it("a FileStore: a new router on the same folder restores the same catalog-started posteriors", async () => {
    const dir = await mkdtemp(join(tmpdir(), "irt-catalog-starts-"));
    try {
      let store = await FileStore.open(dir);
      const router = new IrtRouter({ models: models(), store, logger: quietLogger() });
      const d = decisionOf(await router.invoke(HARD));
      await router.feedback(d.decisionId, true, { source: "test-grader" });
      const live = engineOf(router).binding!.current();
      await expectCatalogStarts(router, live);
      await store.close();
      store = await FileStore.open(dir);
      const again = new IrtRouter({ models: models(), store, logger: quietLogger() });
      await again.invoke(HARD);
      const restored = engineOf(again).binding!.current();
      await expectCatalogStarts(again, restored);
      expect(Array.from(restored.posterior(d.chosen).mean)).toEqual(Array.from(live.posterior(d.chosen).mean));
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("priors learned from a folder do not leak into its own replay", () => {
  it("the replay's anonymous names get no catalog start: a learner starts them at the new-model prior", async () => {
    const tb = ["claude-opus-4-6", "gpt-5", "gpt-5-mini", "gemini-3-pro", "kimi-k2"];
    const names = [...anonymousNames(tb).values()];
    const catalog = await currentModels();
    const { scorer } = await loadDefaultScorer();
    for (const n of names) expect(catalog.resolve(n)).toBeUndefined();
    // a router over the anonymous names (no prices, as the replay presents them): no start for any of them
    const router = new IrtRouter({ models: Object.fromEntries(names.map((n) => [n, fake()])), scorer });
    const ctx = await engineOf(router).scoring();
    expect(learnerStarts(ctx.priors, ctx.catalogIds).size).toBe(0);
    expect(ctx.starts.size).toBe(0);
    const learner = OnlineLearner.forScorer(scorer);
    const r = new IrtRouter({ models: Object.fromEntries(names.map((n) => [n, fake()])), scorer, learner });
    await r.invoke(HARD);
    for (const n of names)
      expect(Array.from(learner.posterior(n).priorMeanVector())).toEqual(Array.from(learner.newModelPrior().mean));
  });

  it("the replay code reads nothing of the catalog (its priors come from the run outcomes it is shown)", async () => {
    const root = join(__dirname, "../../src/runs");
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const text = await readFile(join(root, f), "utf8");
      expect(text, f).not.toMatch(/model-catalog|currentModels|learnerStarts|scorer\/catalog/);
    }
  });
});
