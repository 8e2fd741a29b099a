import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import {
  answerKeys,
  multipleChoiceProbes,
  MULTIPLE_CHOICE_INSTRUCTION,
} from "../../adapters/learning/multiple-choice.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { labelOf } from "../../src/data/csr.js";
import { ValidationError } from "../../src/errors.js";
import { parseCsv } from "../../src/data/csv.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { messageText } from "../../src/langchain/bridge/route-messages.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { thrownBy } from "../errors.js";
import { quietLogger } from "../langchain/helpers.js";
import { toyScorerParts } from "../scorer/helpers.js";

// A toy scorer over a cheap deterministic encoder: the bank needs only alpha and beta, so nothing real is embedded.
const ENC = { id: "multiple-choice-test-encoder@1", dim: 8 };
const encoder: QueryEncoder = {
  ...ENC,
  embed: async (texts) =>
    texts.map((t) => Float32Array.from({ length: ENC.dim }, (_, k) => Math.sin(t.length * 0.37 + k))),
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
    const probe = {
      id: probes.ids[0]!,
      index: 0,
      alpha: probes.alphas.subarray(0, probes.dim),
      beta: probes.betas[0]!,
    };
    const item = ds.items.find((it) => it.id === probe.id)!;
    const question = prompt(probe);
    expect(question).toBe(`${item.text}\n\n${MULTIPLE_CHOICE_INSTRUCTION}`);
    expect(question).toMatch(/\nA\. .*\nB\. /s);
    const correct = labelOf(ds, ds.items.indexOf(item), ds.models.indexOf(REPLAYED));
    expect(grade(`The answer is (${predicted.get(probe.id)})`, probe)).toBe(correct);
    expect(grade("I am not sure.", probe)).toBe(0);
    expect(() => prompt({ ...probe, id: "not-in-the-bank" })).toThrow(
      /not an item of this mmlu-pro-29models probe bank/,
    );
  });

  it("router.calibrate(id, { budget, ...probes }) calibrates a replayed model; each grade is its recorded correctness", async () => {
    const learner = OnlineLearner.forScorer(scorer);
    const store = new MemoryStore();
    const router = new IrtRouter({
      models: { "my-llama": new ReplayModel(), m0: new ReplayModel() },
      scorer,
      learner,
      feedbackSink: store,
      logger: quietLogger(),
    });
    const result = await router.calibrate("my-llama", {
      budget: 8,
      targetSd: 0,
      ...(await multipleChoiceProbes(scorer, { size: 20, cacheDir })),
    });
    expect(result.asked).toBe(8);
    expect(result.failures).toBe(0);
    const recorded = result.answers.map((a) =>
      labelOf(
        ds,
        ds.items.findIndex((it) => it.id === a.probeId),
        ds.models.indexOf(REPLAYED),
      ),
    );
    expect(result.answers.map((a) => a.y)).toEqual(recorded);
    expect((await store.load()).events.map((e) => e.model)).toEqual(Array(8).fill("my-llama"));
    expect(learner.posterior("my-llama").evidence).toBeGreaterThan(0);
  });
});

describe("answer keys come from each item's meta.answer", () => {
  it("MMLU-Pro's loader keeps each question's answer key in meta, and its source hash (the key of every cache) is unchanged", () => {
    // the same keys as the questions table's answer column, for every item
    const file = join(ds.source.dir, "questions.csv.gz");
    const table = parseCsv(gunzipSync(readFileSync(file)).toString("utf8"), file);
    const [idCol, answerCol] = [table.header.indexOf("question_id"), table.header.indexOf("answer")];
    expect(answerKeys(ds)).toEqual(new Map(table.records.map((r) => [r.fields[idCol]!, r.fields[answerCol]!])));
    expect(ds.items.find((it) => it.id === "70")!.meta).toEqual({ src: "ori_mmlu-business_ethics", answer: "I" });
    // the hash the shipped scorer was trained on: embedding caches and probe banks keyed by it stay valid
    const manifest = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "pretrained", "manifest.json"), "utf8"),
    ) as {
      training: { datasets: { name: string; sha256: string }[] };
    };
    expect(ds.source.sha256).toBe(manifest.training.datasets.find((d) => d.name === "mmlu-pro-29models")!.sha256);
  });

  it("a your-own-data folder with an answer column in items.csv gives a probe set graded by its keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irt-mc-own-"));
    try {
      const questions = [
        ["q1", "What colour is the sky?\nA. Blue\nB. Green", "A"],
        ["q2", "How many legs has a spider?\nA. Six\nB. Eight", "b"],
        ["q3", "Is water wet?\nA. Yes\nB. No", ""], // no key: not a probe
      ];
      writeFileSync(
        join(dir, "items.csv"),
        ["item_id,text,answer", ...questions.map(([id, text, key]) => `${id},"${text}",${key}`)].join("\n") + "\n",
      );
      writeFileSync(
        join(dir, "labels.csv"),
        "item_id,model,correct\nq1,m0,1\nq2,m0,0\nq3,m0,1\nq1,m1,0\nq2,m1,1\nq3,m1,1\n",
      );
      const own = await loadDataset(dir);
      expect(answerKeys(own)).toEqual(
        new Map([
          ["q1", "A"],
          ["q2", "B"],
        ]),
      );
      const { probes, prompt, grade } = await multipleChoiceProbes(scorer, { dataset: dir, size: 10, cacheDir });
      expect([...probes.ids].sort()).toEqual(["q1", "q2"]);
      const probe = (id: string) => {
        const index = probes.ids.indexOf(id);
        return {
          id,
          index,
          alpha: probes.alphas.subarray(index * probes.dim, (index + 1) * probes.dim),
          beta: probes.betas[index]!,
        };
      };
      expect(prompt(probe("q2"))).toBe(`${own.items[1]!.text}\n\n${MULTIPLE_CHOICE_INSTRUCTION}`);
      expect([
        grade("The answer is (A)", probe("q1")),
        grade("The answer is (A)", probe("q2")),
        grade("The answer is (B)", probe("q2")),
      ]).toEqual([1, 0, 1]);

      // without keys, or with a key that is not a letter: a ValidationError naming the option
      writeFileSync(join(dir, "items.csv"), "item_id,text\nq1,What?\nq2,Which?\nq3,Who?\n");
      const none = thrownBy(ValidationError, () =>
        answerKeys({ ...own, items: own.items.map(({ id, text }) => ({ id, text })) }),
      );
      expect(none).toMatchObject({ path: "options.dataset", message: expect.stringMatching(/has no answer keys/) });
      await expect(multipleChoiceProbes(scorer, { dataset: dir, cacheDir })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
        path: "options.dataset",
      });
      const numeric = thrownBy(ValidationError, () =>
        answerKeys({ ...own, items: [{ id: "q9", text: "2 + 2?", meta: { answer: "4" } }] }),
      );
      expect(numeric).toMatchObject({ path: "options.dataset", details: { item: "q9", answer: "4" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
