import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";
import { DatasetFormatError, EncoderInputError, FeedbackError, ValidationError } from "../../src/errors.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { thrownBy } from "../errors.js";
import { ToyScorer } from "../langchain/helpers.js";

const known = [
  { id: "a", ability: [0.1, 0.2] },
  { id: "b", ability: [0.3, -0.1] },
];

describe("input that used to break things later is refused where it is given, naming the field", () => {
  it("learner.addModel: blank or non-string ids, non-finite or string abilities, a like that is not a list of tracked ids", () => {
    const l = new OnlineLearner(known);
    const cases: [() => unknown, string][] = [
      [() => l.addModel("   "), "modelId"],
      [() => l.addModel(42 as unknown as string), "modelId"],
      [() => l.addModel("ft", { ability: [Number.NaN, 0.3] }), "ability.0"],
      [() => l.addModel("ft", { ability: [0.1, Infinity] }), "ability.1"],
      [() => l.addModel("ft", { ability: ["0.1", 0.2] as unknown as number[] }), "ability.0"],
      [() => l.addModel("ft", { ability: [0.1] }), "ability"],
      [() => l.addModel("ft", { like: "x" as unknown as string[] }), "like"],
      [() => l.addModel("ft", { like: ["a", "nope"] }), "like.1"],
    ];
    for (const [call, path] of cases) {
      const err = thrownBy(FeedbackError, call);
      expect(err, path).toBeInstanceOf(FeedbackError);
      expect(err.path).toBe(path);
    }
    expect(l.models()).toEqual(["a", "b"]); // nothing was added
    l.addModel("ft", { ability: [0.2, 0.1] });
    expect(() => OnlineLearner.fromState(JSON.parse(JSON.stringify(l.exportState())))).not.toThrow();
  });

  it("a router model key of only whitespace is a ValidationError naming options.models", () => {
    const err = thrownBy(
      ValidationError,
      () => new IrtRouter({ models: { "   ": new FakeListChatModel({ responses: ["x"] }) }, scorer: new ToyScorer() }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.path).toMatch(/^options\.models/);
  });

  it("an encoder that returns [] is an EncoderInputError naming options.encoder, not a TypeError", async () => {
    const encoder = { id: "toy-words-2", dim: 2, embed: async () => [] as Float32Array[] };
    const router = new IrtRouter({
      models: { "gpt-4": new FakeListChatModel({ responses: ["x"] }) },
      scorer: new ToyScorer(),
      encoder,
    });
    const err = await router.invoke([new HumanMessage("hello")]).then(
      () => undefined,
      (e: unknown) => e as EncoderInputError,
    );
    expect(err).toBeInstanceOf(EncoderInputError);
    expect(err!.path).toBe("options.encoder");
  });
});

describe("your-own-data headers", () => {
  const root = mkdtempSync(join(tmpdir(), "irt-bad-header-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a misspelt items column (ategory) is a DatasetFormatError with did you mean, not a meta column", async () => {
    const dir = join(root, "ds");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "items.csv"), "item_id,text,ategory\nq1,What is 2+2?,math\nq2,Name a colour,misc\n");
    writeFileSync(join(dir, "models.csv"), "model_id\nm1\nm2\n");
    writeFileSync(join(dir, "labels.csv"), "item_id,model_id,correct\nq1,m1,1\nq1,m2,0\nq2,m1,0\nq2,m2,1\n");
    const err = await loadOwnDataFolder(dir).then(
      () => undefined,
      (e: unknown) => e as DatasetFormatError,
    );
    expect(err).toBeInstanceOf(DatasetFormatError);
    expect(err!.message).toMatch(/"ategory".*did you mean "category"/);
    expect(err!.line).toBe(1);
  });
});

describe("a feedback event with a field no string conversion can print", () => {
  it("is a FeedbackError naming the field, not a TypeError from the message", () => {
    const learner = new OnlineLearner([
      { id: "a", ability: [0, 0] },
      { id: "b", ability: [1, 0] },
    ]);
    const bare = Object.create(null) as unknown as number; // String(bare) throws "Cannot convert object to primitive value"
    for (const field of ["beta", "y", "at"] as const) {
      const event = { id: "!", model: "a", alpha: [0, 0], beta: 0, y: 1, at: 1, [field]: bare };
      const e = thrownBy(FeedbackError, () => learner.observe(event));
      expect(e.message).toContain(`${field === "y" ? "outcome y" : field} is {}`);
    }
    const alpha = thrownBy(FeedbackError, () =>
      learner.observe({ id: "!", model: "a", alpha: [0, bare], beta: 0, y: 1, at: 1 }),
    );
    expect(alpha.message).toContain("alpha[1] is {}");
  });
});
