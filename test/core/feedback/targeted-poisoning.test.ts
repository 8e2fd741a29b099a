/**
 * Targeted poisoning (issue 39): feedback that is false whenever the strong model answered and true whenever a weak one
 * did, 10 outcomes from one caller that gives no `source`, against a router built the documented way (the pretrained
 * scorer, `store: new MemoryStore()`, real catalog ids). The strong model must keep at least 80% of its routes on
 * ordinary prompts on average over 10 trials, and 70% in every trial. The same attack at full weight
 * (`unattributedWeight: 1`, irt-router 0.2.0's behaviour) is checked to succeed, so the test can tell the difference;
 * the budget is the default in both (10 outcomes are far under it), so the budget is not what bounds it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { HumanMessage } from "@langchain/core/messages";
import { loadPretrained } from "../../../adapters/artifact/index.js";
import { loadDataset } from "../../../adapters/data/index.js";
import { MemoryStore } from "../../../adapters/stores/index.js";
import { datasetSplits } from "../../../src/data/select.js";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import type { ItemParams, Scorer } from "../../../src/scorer/types.js";

const STRONG = "gpt-4-1106-preview";
const MODELS = [STRONG, "mixtral-8x7b-instruct-v0.1@routerbench-subset-11models", "mistralai/mistral-7b-chat"];
const TRIALS = 10;

let scorer: Scorer;
let prompts: string[];

beforeAll(async () => {
  const pretrained = await loadPretrained();
  // The real scorer, its item parameters memoised across the trials' routers (each prompt is encoded once).
  const cache = new Map<string, Promise<ItemParams>>();
  const memo = Object.create(pretrained) as Scorer;
  memo.itemParams = (input: string | Float32Array) => {
    if (typeof input !== "string") return pretrained.itemParams(input);
    if (!cache.has(input)) cache.set(input, pretrained.itemParams(input));
    return cache.get(input)!;
  };
  scorer = memo;
  const ds = await loadDataset("routerbench-subset-11models");
  prompts = datasetSplits(ds).test.map((i) => ds.items[i]!.text);
}, 300_000);

function makeRouter(unattributedWeight?: number): IrtRouter {
  return new IrtRouter({
    models: Object.fromEntries(MODELS.map((m) => [m, new FakeListChatModel({ responses: ["ok"] })])),
    scorer,
    store: new MemoryStore(),
    ...(unattributedWeight !== undefined ? { feedbackLimits: { unattributedWeight } } : {}),
    logger: { warn: () => undefined },
  });
}

async function strongShare(router: IrtRouter, evalPrompts: readonly string[]): Promise<number> {
  let strong = 0;
  for (const p of evalPrompts) {
    const r = await router.invoke([new HumanMessage(p)]);
    if ((r.response_metadata.irtRouter as RouteDecision).chosen === STRONG) strong++;
  }
  return strong / evalPrompts.length;
}

/** Share of its routes the strong model keeps after the attack, per trial. */
async function attack(unattributedWeight?: number): Promise<number[]> {
  const evalPrompts = prompts.slice(200, 280);
  const kept: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const router = makeRouter(unattributedWeight);
    const before = await strongShare(router, evalPrompts);
    for (const p of prompts.slice(trial * 10, trial * 10 + 10)) {
      const r = await router.invoke([new HumanMessage(p)]);
      const d = r.response_metadata.irtRouter as RouteDecision;
      await router.feedback(d.decisionId, d.chosen !== STRONG); // no source: an unauthenticated caller
    }
    kept.push((await strongShare(router, evalPrompts)) / before);
  }
  return kept;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe("targeted poisoning by an unauthenticated caller", () => {
  it("10 adversarial outcomes leave the strong model >= 80% of its routes on average, >= 70% in every trial", async () => {
    const kept = await attack();
    expect(mean(kept)).toBeGreaterThanOrEqual(0.8);
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(0.7);
  }, 300_000);

  it("the same 10 outcomes at full weight (irt-router 0.2.0) take most of its routes: the harness sees the attack", async () => {
    const kept = await attack(1);
    expect(mean(kept)).toBeLessThan(0.8);
  }, 300_000);
});
