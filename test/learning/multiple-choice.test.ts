import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { multipleChoiceProbes, MULTIPLE_CHOICE_INSTRUCTION } from "../../adapters/learning/multiple-choice.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { labelOf } from "../../src/data/csr.js";
import { parseCsv } from "../../src/data/csv.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { messageText } from "../../src/langchain/routing-text.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { quietLogger } from "../langchain/helpers.js";
import { toyScorerParts } from "../scorer/helpers.js";

// A toy scorer over a cheap deterministic encoder: the bank needs only alpha and beta, so nothing real is embedded.
const ENC = { id: "multiple-choice-test-encoder@1", dim: 8 };
const encoder: QueryEncoder = {
  ...ENC,
  embed: async (texts) => texts.map((t) => Float32Array.from({ length: ENC.dim }, (_, k) => Math.sin(t.length * 0.37 + k))),
};
const { weights, catalog } = toyScorerParts(11, ["m0", "m1"]);
const scorer = new IrtMoeScorer({ weights, catalog, encoderInfo: ENC, temperature: 1, encoder });

const REPLAYED = "Meta-Llama-3_1-8B-Instruct";
const cacheDir = mkdtempSync(join(tmpdir(), "irt-mc-probes-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

let ds: CorrectnessDataset;
let predicted: Map<string, string>;
beforeAll(async () => {
  ds = await loadDataset("mmlu-pro-29models");
  // The replayed model's recorded answer letters (blank: no letter could be extracted from its output).
  const file = join(ds.source.dir, "predictions_matrix.csv.gz");
  const table = parseCsv(gunzipSync(readFileSync(file)).toString("utf8"), file);
  const col = table.header.indexOf(REPLAYED);
  predicted = new Map(table.records.map((r) => [r.fields[0]!, r.fields[col]!]));
});

/** A chat model that answers MMLU-Pro questions as REPLAYED did: it finds the question in the prompt and replies with its recorded letter. */
class ReplayModel extends BaseChatModel {
  constructor() {
    super({});
  }
  _llmType() {
    return "replay";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const prompt = messageText(messages.at(-1)!);
    const item = ds.items.find((it) => prompt.startsWith(`${it.text}\n\n`));
    const letter = item ? predicted.get(item.id) : undefined;
    const text = letter ? `Let me think. The answer is (${letter}).` : "I am not sure.";
    return { generations: [{ message: new AIMessage(text), text }] };
  }
}

describe("multipleChoiceProbes: a ready probe set from the data root's MMLU-Pro", () => {
  it("poses each probe as its question with lettered options and grades by letter against the answer key", async () => {
    const { probes, prompt, grade } = await multipleChoiceProbes(scorer, { size: 20, cacheDir });
    expect(probes.dataset).toBe("mmlu-pro-29models");
    expect(probes.ids).toHaveLength(20);
    const probe = { id: probes.ids[0]!, index: 0, alpha: probes.alphas.subarray(0, probes.dim), beta: probes.betas[0]! };
    const item = ds.items.find((it) => it.id === probe.id)!;
    const question = prompt(probe);
    expect(question).toBe(`${item.text}\n\n${MULTIPLE_CHOICE_INSTRUCTION}`);
    expect(question).toMatch(/\nA\. .*\nB\. /s);
    const correct = labelOf(ds, ds.items.indexOf(item), ds.models.indexOf(REPLAYED));
    expect(grade(`The answer is (${predicted.get(probe.id)})`, probe)).toBe(correct);
    expect(grade("I am not sure.", probe)).toBe(0);
    expect(() => prompt({ ...probe, id: "not-in-the-bank" })).toThrow(/not an item of this mmlu-pro-29models probe bank/);
  });

  it("router.calibrate(id, { budget, ...probes }) calibrates a replayed model; each grade is its recorded correctness", async () => {
    const learner = OnlineLearner.forScorer(scorer);
    const store = new MemoryStore();
    const router = new IrtRouter({ models: { "my-llama": new ReplayModel(), m0: new ReplayModel() }, scorer, learner, feedbackSink: store, logger: quietLogger() });
    const result = await router.calibrate("my-llama", { budget: 8, targetSd: 0, ...(await multipleChoiceProbes(scorer, { size: 20, cacheDir })) });
    expect(result.asked).toBe(8);
    expect(result.failures).toBe(0);
    const recorded = result.answers.map((a) => labelOf(ds, ds.items.findIndex((it) => it.id === a.probeId), ds.models.indexOf(REPLAYED)));
    expect(result.answers.map((a) => a.y)).toEqual(recorded);
    expect((await store.load()).events.map((e) => e.model)).toEqual(Array(8).fill("my-llama"));
    expect(learner.posterior("my-llama").evidence).toBeGreaterThan(0);
  });
});
