import { describe, expect, it } from "vitest";
import type { AIMessage } from "@langchain/core/messages";
import { estimateTokens } from "../../../src/policy/tokens.js";
import type { CorrectnessDataset } from "../../../src/data/types.js";
import { buildAgentWorld, ownCostOf } from "../../../bench/agent/world.js";
import { callCostUsd, withCachedPrice } from "../../../bench/agent/cached-pricing.js";
import { fillerText, ReplayChatModel, TokenLedger } from "../../../bench/agent/replay-models.js";
import {
  DEFAULT_RUN_SHAPE,
  drawRuns,
  drawSteps,
  playRun,
  prefixMessage,
  RunCache,
  SimClock,
  TOOL_ERROR,
  TOOL_OK,
  type RunContext,
  type RunShape,
  type RunSpec,
  type StepCaller,
} from "../../../bench/agent/run-model.js";
import { runWeights } from "../../../bench/agent/stats.js";
import { reportJson } from "../../../bench/agent/report.js";

/** 4 items in 2 categories; "strong" (gpt-, 50% cached price) right on all but item 3, "cheap" (no cache) only on item 0. */
function tinyDataset(): CorrectnessDataset {
  const y = [1, 1, 1, 0, 1, 0, 0, 0]; // item-major: [strong, cheap] per item
  return {
    name: "tiny",
    models: ["gpt-strong", "cheap"],
    items: [
      { id: "a", text: "What is two plus two?", category: "math" },
      { id: "b", text: "What is three plus four?", category: "math" },
      { id: "c", text: "Name a colour of the sky.", category: "words" },
      { id: "d", text: "Name a prime above ten.", category: "words" },
    ],
    labels: {
      offsets: Int32Array.from([0, 2, 4, 6, 8]),
      model: Int32Array.from([0, 1, 0, 1, 0, 1, 0, 1]),
      y: Float32Array.from(y),
    },
    source: { dir: "/tmp/tiny", files: [], sha256: "0" },
  };
}

const prices = [
  withCachedPrice("gpt-strong", { inputPer1M: 10, outputPer1M: 30 }),
  withCachedPrice("cheap", { inputPer1M: 1, outputPer1M: 1 }),
];

function setup(shape: Partial<RunShape> = {}) {
  const world = buildAgentWorld(tinyDataset(), prices);
  const ledger = new TokenLedger();
  const s: RunShape = { ...DEFAULT_RUN_SHAPE, prefixTokens: 1000, ...shape };
  const ctx: RunContext = {
    world,
    shape: s,
    pricing: callCostUsd,
    ledger,
    prefix: prefixMessage(s, ledger),
    clock: new SimClock(),
  };
  const children = world.models.map((_, m) => new ReplayChatModel(world, m, ledger));
  const direct =
    (m: number): StepCaller =>
    (messages) =>
      children[m]!.invoke(messages) as Promise<AIMessage>;
  return { world, ctx, children, direct };
}

const spec = (items: number[], draws: number[] = items.flatMap(() => [0.99, 0.99])): RunSpec => ({
  id: "r",
  category: "x",
  items,
  visibleDraws: draws,
});

describe("agent runs: construction", () => {
  it("draws steps in [min, max] with a mean near min + meanExtra", () => {
    let sum = 0;
    for (let k = 0; k < 4000; k++) {
      const n = drawSteps(DEFAULT_RUN_SHAPE, (k + 0.5) / 4000);
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThanOrEqual(30);
      sum += n;
    }
    expect(sum / 4000).toBeGreaterThan(7.3);
    expect(sum / 4000).toBeLessThan(8.3);
  });

  it("keeps every run in one category of the pool, seeded", () => {
    const { world, ctx } = setup();
    const runs = drawRuns(world, [0, 1, 2, 3], 50, 7, ctx.shape, "t");
    for (const r of runs) {
      expect(new Set(r.items.map((i) => world.categories[i])).size).toBe(1);
      expect(world.categories[r.items[0]!]).toBe(r.category);
      expect(r.visibleDraws).toHaveLength(r.items.length * (ctx.shape.maxRetries + 1));
    }
    expect(drawRuns(world, [0, 1, 2, 3], 50, 7, ctx.shape, "t")).toEqual(runs);
    expect(drawRuns(world, [2, 3], 20, 1, ctx.shape, "t").every((r) => r.items.every((i) => i >= 2))).toBe(true);
  });

  it("builds the messages: the prefix, then per step the item text, the answer and the tool's reply", async () => {
    const { ctx, world, direct } = setup();
    const seen: number[] = [];
    const caller: StepCaller = async (messages, call) => {
      seen.push(messages.length);
      expect(messages[0]).toBe(ctx.prefix);
      expect(estimateTokens(String(messages[0]!.content))).toBe(1000);
      expect(messages[messages.length - 1]!.getType()).toBe(call.attempt === 0 ? "human" : "tool");
      return direct(0)(messages, call);
    };
    const r = await playRun(ctx, spec([0, 2]), caller);
    expect(seen).toEqual([2, 5]);
    expect(r.success).toBe(true);
    expect(world.texts[0]).toBe("What is two plus two?");
  });
});

describe("agent runs: cost and the prompt cache", () => {
  it("bills the context at the input price, the part the same model cached at the cached price, plus the step's own cost", async () => {
    const { ctx, world, direct } = setup();
    const r = await playRun(ctx, spec([0, 1]), direct(0));
    const p = prices[0]!;
    const a0 = world.answerTokens[0]!;
    const ok = estimateTokens(TOOL_OK);
    // step 1: context = prefix (1000), nothing cached; step 2: context = prefix + item 0 + answer + ok, of which the
    // first call's input (prefix + item 0) is cached.
    const ctx2 = 1000 + world.promptTokens[0]! + a0 + ok;
    const cached2 = 1000 + world.promptTokens[0]!;
    const expected =
      (1000 * p.inputPer1M) / 1e6 +
      ownCostOf(world, 0, 0) +
      ((ctx2 - cached2) * p.inputPer1M + cached2 * p.cachedInputPer1M) / 1e6 +
      ownCostOf(world, 1, 0);
    expect(r.costUsd).toBeCloseTo(expected, 12);
    expect(r.cachedTokens).toBe(cached2);
    expect(r.inputTokens).toBe(1000 + world.promptTokens[0]! + ctx2 + world.promptTokens[1]!);
  });

  it("has no cache hit once the lifetime has passed, nor on a model without a cache discount", async () => {
    const short = setup({ cacheLifetimeSec: 10 });
    expect((await playRun(short.ctx, spec([0, 1]), short.direct(0))).cachedTokens).toBe(0);
    const long = setup({ cacheLifetimeSec: 15 });
    expect((await playRun(long.ctx, spec([0, 1]), long.direct(0))).cachedTokens).toBeGreaterThan(0);
    const cheap = setup();
    expect((await playRun(cheap.ctx, spec([0, 1]), cheap.direct(1))).cachedTokens).toBe(0);
  });

  it("loses the cache on a switch and finds the model's own prefix again when it comes back", async () => {
    const { ctx, children } = setup();
    const order = [0, 1, 0];
    let k = 0;
    const r = await playRun(
      ctx,
      spec([0, 1, 0]),
      (messages) => children[order[k++]!]!.invoke(messages) as Promise<AIMessage>,
    );
    expect(r.models).toEqual([0, 1, 0]);
    expect(r.switches).toBe(2);
    expect(r.cachedTokens).toBe(1000 + ctx.world.promptTokens[0]!);
  });

  it("RunCache: a hit is the model's previous input, capped, within the lifetime", () => {
    const c = new RunCache(100);
    expect(c.hit(0, 500, 400, 0)).toBe(0);
    expect(c.hit(0, 900, 800, 50)).toBe(500);
    expect(c.hit(0, 1200, 300, 100)).toBe(300);
    expect(c.hit(0, 1500, 1400, 201)).toBe(0);
    expect(c.hit(1, 1500, 1400, 201)).toBe(0);
  });
});

describe("agent runs: failures and retries", () => {
  it("retries a visible failure with the tool error in the messages, up to maxRetries", async () => {
    const { ctx, direct } = setup({ maxRetries: 2 });
    const tools: string[] = [];
    const caller: StepCaller = async (messages, call) => {
      const last = messages[messages.length - 1]!;
      if (call.attempt > 0) tools.push(`${(last as { status?: string }).status}:${String(last.content)}`);
      return direct(1)(messages, call);
    };
    // item 1: "cheap" is wrong; all draws visible (0 < v)
    const r = await playRun(ctx, spec([1], [0, 0, 0]), caller);
    expect(r.calls).toBe(3);
    expect(r.visibleFailures).toBe(3);
    expect(r.success).toBe(false);
    expect(tools).toEqual([`error:${TOOL_ERROR}`, `error:${TOOL_ERROR}`]);
  });

  it("an invisible failure is answered ok, not retried, and fails the run; a retry that succeeds saves it", async () => {
    const { ctx, children } = setup();
    const invisible = await playRun(
      ctx,
      spec([1, 0], [0.9, 0.9, 0.9, 0.9]),
      (m) => children[1]!.invoke(m) as Promise<AIMessage>,
    );
    expect(invisible.calls).toBe(2);
    expect(invisible.success).toBe(false);
    let k = 0;
    const escalate: StepCaller = (messages) => children[k++ === 0 ? 1 : 0]!.invoke(messages) as Promise<AIMessage>;
    const saved = await playRun(ctx, spec([1], [0, 0]), escalate);
    expect(saved.calls).toBe(2);
    expect(saved.success).toBe(true);
  });

  it("visibility follows the run's draws against v", async () => {
    const { ctx, direct } = setup({ visibility: 0.3 });
    expect((await playRun(ctx, spec([1], [0.29, 0.99]), direct(1))).calls).toBe(2);
    expect((await playRun(ctx, spec([1], [0.31, 0.99]), direct(1))).calls).toBe(1);
    // a step that succeeds is answered "ok" whatever its draw
    const statuses: string[] = [];
    const caller: StepCaller = async (messages, call) => {
      const last = messages[messages.length - 2];
      if (call.step === 1) statuses.push(`${(last as { status?: string }).status}:${String(last!.content)}`);
      return direct(0)(messages, call);
    };
    await playRun(ctx, spec([0, 1], [0, 0, 0, 0]), caller);
    expect(statuses).toEqual([`success:${TOOL_OK}`]);
  });
});

describe("agent runs: replay pieces and figures", () => {
  it("filler text has the token estimate asked for", () => {
    for (const n of [0, 3, 150, 2000])
      expect(estimateTokens(fillerText("lead:", n, estimateTokens("lead:")))).toBe(
        Math.max(n, estimateTokens("lead:")),
      );
  });

  it("replay models report usage and answer the step's item", async () => {
    const { ctx, world, children } = setup();
    const caller: StepCaller = async (messages) => {
      const reply = (await children[0]!.invoke(messages)) as AIMessage;
      expect(reply.usage_metadata?.output_tokens).toBe(Math.round(world.answerTokens[2 * 2]!));
      expect(reply.usage_metadata?.input_tokens).toBe(1000 + world.promptTokens[2]!);
      return reply;
    };
    await playRun(ctx, spec([2]), caller);
  });

  it("run weights are the mean multiplicity of a run's items in each resample", () => {
    const plan = { n: 3, resamples: 2, seed: 0, indices: Int32Array.from([0, 1, 2, 0, 0, 2]) };
    const w = runWeights([{ items: [10, 11] }, { items: [12] }], [10, 11, 12], plan);
    expect(Array.from(w.w)).toEqual([1, 1, 1, 1]);
    const w2 = runWeights([{ items: [10, 11] }, { items: [11] }], [10, 11, 12], {
      ...plan,
      resamples: 1,
      indices: Int32Array.from([0, 0, 2]),
    });
    expect(Array.from(w2.w)).toEqual([1, 0]);
  });

  it("--json has exactly the keys of the issue", () => {
    const e = { value: 0.5, ci95: [0.4, 0.6] as [number, number] };
    const row = {
      name: "per-run",
      setting: "x",
      runs: 10,
      success: e,
      costPerRun: e,
      costRatio: e,
      cachedShare: e,
      switchesPerRun: e,
      callsPerRun: 8,
    };
    const json = reportJson({
      dataset: "d",
      runs: 10,
      seeds: [1, 2],
      strongest: "m",
      rows: [row],
      learning: [
        { scenario: "known", checkpoints: [{ runs: 250, success: 0.5, costPerRun: 0.1, successCi95: [0, 1] }] },
      ],
      curves: [{ router: "cache-aware", lambda: 2, success: e, costPerRun: { value: 0.1, ci95: [0.09, 0.11] } }],
    });
    expect(json).toEqual({
      dataset: "d",
      runs: 10,
      seeds: 2,
      strongest: "m",
      rows: [
        {
          name: "per-run",
          success: 0.5,
          successCi95: [0.4, 0.6],
          costPerRun: 0.5,
          costRatio: 0.5,
          cachedShare: 0.5,
          switchesPerRun: 0.5,
        },
      ],
      learning: [{ scenario: "known", checkpoints: [{ runs: 250, success: 0.5, costPerRun: 0.1 }] }],
      curves: [{ router: "cache-aware", lambda: 2, success: 0.5, successCi95: [0.4, 0.6], costPerRun: 0.1 }],
    });
  });
});
