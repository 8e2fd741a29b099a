import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { command, prepareAndRun, toJson, formatDemo } from "../adapters/cli/commands/demo.js";
import type { CorrectnessDataset } from "../src/data/types.js";
import type { Scorer } from "../src/scorer/types.js";
import { EncoderMismatchError } from "../src/errors.js";
import { ROUTERBENCH_PRICES } from "../src/policy/prices.js";
import { parseWith } from "../src/util/validate.js";
import { rejectedWith } from "./errors.js";
import { saveToyScorer } from "./scorer/helpers.js";

const MODELS = ["gpt-4-1106-preview", "mistralai/mixtral-8x7b-chat", "mistralai/mistral-7b-chat"];

/**
 * A routerbench-like dataset: "easy" multiple-choice items with a long few-shot prompt (1-token answers)
 * that every model gets right, "hard" coding items with short prompts (60-token answers) only GPT-4 solves.
 */
function syntheticDataset(n = 700): { ds: CorrectnessDataset; vectors: Float32Array } {
  const items = [];
  const offsets = new Int32Array(n + 1);
  const model: number[] = [];
  const y: number[] = [];
  const cost: number[] = [];
  const vectors = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    const hard = i % 3 === 0;
    const text = hard
      ? `Write a function number ${i} that reverses a list.`
      : `${"Example: which option is right? A) yes B) no\nAnswer: A\n\n".repeat(30)}Question ${i}: which option is right? A) yes B) no`;
    items.push({ id: `item-${i}`, text, category: hard ? "code" : "mc" });
    vectors[i * 2] = hard ? 0.1 : 1;
    vectors[i * 2 + 1] = hard ? 1 : 0.1;
    MODELS.forEach((m, k) => {
      const price = ROUTERBENCH_PRICES[m]!;
      const inTok = text.length / 4;
      const outTok = hard ? 60 : 1;
      model.push(k);
      // GPT-4 solves everything but 1 in 10 hard items; the others solve easy items only (mistral-7b misses 1 in 5)
      y.push(k === 0 ? (hard && i % 30 === 0 ? 0 : 1) : hard ? 0 : k === 2 && i % 5 === 1 ? 0 : 1);
      cost.push((inTok * price.inputPer1M + outTok * price.outputPer1M) / 1e6);
    });
    offsets[i + 1] = model.length;
  }
  const ds: CorrectnessDataset = {
    name: "synthetic-routerbench",
    models: MODELS,
    items,
    labels: { offsets, model: Int32Array.from(model), y: Float32Array.from(y), cost: Float32Array.from(cost) },
    source: { dir: "/nowhere", files: [], sha256: "0" },
  };
  return { ds, vectors };
}

/** A small scorer that knows the planted structure (with a little miscalibration). */
const scorer: Scorer = {
  encoder: { id: "test-encoder", dim: 2 },
  models: [],
  abilityDim: 1,
  async itemParams() {
    throw new Error("not used");
  },
  async predict(x, ids) {
    const v = x as Float32Array;
    const hard = v[1]! > v[0]!;
    return (ids ?? MODELS).map((m) => ({
      model: m,
      p: m.startsWith("gpt-4") ? 0.93 : hard ? 0.15 : m === MODELS[2] ? 0.78 : 0.9,
    }));
  },
  ability() {
    return new Float32Array(1);
  },
};

describe("irt-router demo (injected scorer, synthetic routerbench-like data)", () => {
  it("chooses settings on val, replays on test, and reports every row", async () => {
    const { ds, vectors } = syntheticDataset();
    const { report, outputTokens, outputTokensMethod } = await prepareAndRun({
      dataset: ds,
      scorer,
      embed: async () => ({ vectors, dim: 2, encoder: { id: "test-encoder", dim: 2 } }),
      scorerName: "test scorer",
    });
    const names = report.rows.map((r) => r.name);
    expect(names).toEqual([
      "quality",
      "cost-aware",
      "cost-aware (cheaper)",
      "cheapest-above",
      "budget",
      "always:gpt-4-1106-preview",
      "always:mistralai/mistral-7b-chat",
    ]);
    const by = Object.fromEntries(report.rows.map((r) => [r.name, r]));
    if (process.env.DEBUG_DEMO) console.log(formatDemo(report, outputTokens, "t", outputTokensMethod));
    const gpt4 = by["always:gpt-4-1106-preview"]!;
    // The planted structure: easy items to mixtral, hard ones to GPT-4, at a fraction of GPT-4's spend.
    expect(by["cost-aware"]!.accuracy).toBeGreaterThan(0.9);
    expect(by["cost-aware"]!.spendUsd).toBeLessThan(0.6 * gpt4.spendUsd);
    expect(by["cost-aware"]!.share["mistralai/mixtral-8x7b-chat"]).toBeGreaterThan(0.5);
    expect(by["cost-aware"]!.chosenOn!.rule).toMatch(/val/);
    expect(by["budget"]!.setting).toMatch(/^budget\(maxUsdPerRun=/);
    for (const r of report.rows) {
      const total = Object.values(r.share).reduce((a, b) => a + b, 0);
      expect(total).toBeCloseTo(1, 9);
    }
    // kNN output length: hard (code) prompts get long answers, easy ones one token.
    expect(outputTokensMethod).toMatch(/most similar TRAIN prompts/);
    expect(outputTokens.find((o) => o.model === "gpt-4-1106-preview")!.mean).toBeGreaterThan(10);

    const json = toJson(report);
    expect(json.items).toBe(report.items);
    expect(json.rows.map((r) => r.name)).toEqual(expect.arrayContaining(MODELS.map((m) => `always:${m}`)));
    expect(new Set(json.rows.map((r) => r.name)).size).toBe(json.rows.length);
    for (const r of json.rows)
      expect(Object.keys(r)).toEqual(expect.arrayContaining(["name", "accuracy", "spendUsd", "setting", "share"]));

    const text = formatDemo(report, outputTokens, "test scorer", outputTokensMethod);
    expect(text).toMatch(/\| cost-aware \| cost-aware\(lambda=/);
    expect(text).toMatch(/Cost-accuracy curve/);
  });
});

describe("irt-router demo --replay --model", () => {
  const tmp = mkdtempSync(join(tmpdir(), "irt-router-demo-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  // The demo embeds with the default encoder, so a scorer of another encoder is refused when it is loaded (prepareAndRun
  // does not compare encoders again), before the dataset is even looked for.
  it("refuses a scorer built with another encoder than the default one, naming its manifest, before reading the dataset", async () => {
    const dir = await saveToyScorer(join(tmp, "toy-scorer"), "toy@1", MODELS);
    const args = parseWith(
      command.schema,
      { replay: true, model: dir, "data-root": join(tmp, "no-data-here") },
      "options",
    );
    const err = await rejectedWith(EncoderMismatchError, command.run(args, []));
    expect(err).toMatchObject({
      code: "ENCODER_MISMATCH",
      file: join(dir, "manifest.json"),
      path: "options.model",
      expected: { id: "toy@1" },
    });
    // advice for the command line, not the library's "options.encoder"
    expect(err.message).toMatch(
      /irt-router demo embeds the dataset with the static encoder or USE-lite only, and this scorer was built with "toy@1": give --model a scorer built with one of them/,
    );
    expect(err.message).not.toMatch(/options\.encoder/);
  });
});
