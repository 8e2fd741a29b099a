/**
 * Property tests over the public inputs: every generated input either works or is refused with a typed error
 * (IrtRouterError) that names the field (`path`) or the file (`file`); nothing crashes with a raw TypeError, hangs,
 * or is accepted and breaks later. Run counts are bounded so the whole file stays within a few seconds.
 */
import fc from "fast-check";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";
import { FileStore } from "../../adapters/stores/file.js";
import { IrtRouterError } from "../../src/errors.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { ToyScorer } from "../langchain/helpers.js";

const root = mkdtempSync(join(tmpdir(), "irt-props-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `fn`; a throw must be an IrtRouterError naming a field or a file. */
async function worksOrTypedError(fn: () => unknown): Promise<"ok" | "refused"> {
  try {
    await fn();
    return "ok";
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(IrtRouterError);
    const e = error as IrtRouterError;
    expect(e.path ?? e.file, `${e.message} names no field`).toBeTruthy();
    return "refused";
  }
}

/** Plausible and implausible values for an option: the shapes users get wrong. */
const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -1, 0, 1, 0.5, 1e9),
  fc.string({ maxLength: 6 }),
  fc.constantFrom("quality", "cheapest", "thompson", "", "   "),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(
    fc.constantFrom("kind", "weight", "minP", "budget", "x"),
    fc.oneof(fc.double(), fc.string({ maxLength: 4 })),
  ),
);
const model = () => new FakeListChatModel({ responses: ["ok"] });
const pureChecks = { numRuns: 150 };

describe("router options and policies", () => {
  it("every generated option set builds a router or is a typed error naming the option", async () => {
    const keys = [
      "policy",
      "maxAttempts",
      "expectedOutputTokens",
      "decisionLogSize",
      "cacheSize",
      "feedbackLimits",
      "routingText",
      "bogus",
    ];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 3 }), async (opts) => {
        await worksOrTypedError(
          () => new IrtRouter({ models: { "gpt-4": model() }, scorer: new ToyScorer(), ...opts } as never),
        );
      }),
      pureChecks,
    );
  });

  it("every generated models map builds a router or is a typed error naming the model", async () => {
    const key = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom("gpt-4", "  ", "mixtral"));
    const entry = fc.oneof(fc.constant("model"), fc.constant("cfg"), value);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, entry, { maxKeys: 3 }), async (spec) => {
        const models = Object.fromEntries(
          Object.entries(spec).map(([k, v]) => [k, v === "model" ? model() : v === "cfg" ? { model: model() } : v]),
        );
        await worksOrTypedError(() => new IrtRouter({ models, scorer: new ToyScorer() } as never));
      }),
      pureChecks,
    );
  });
});

describe("feedback arguments", () => {
  it("every generated feedback call records events or is a typed error naming the argument", async () => {
    const learner = new OnlineLearner(
      new ToyScorer().models.map((m) => ({ id: m.id, ability: m.ability })),
      { unknownModels: "add" },
    );
    const router = new IrtRouter({ models: { "gpt-4": model(), mixtral: model() }, scorer: new ToyScorer(), learner });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await router.invoke([new HumanMessage(`question ${i}`)], {
        metadata: { irtRouterRunId: `run-${i % 4}` },
      });
      ids.push((r.response_metadata.irtRouter as { decisionId: string }).decisionId);
    }
    const id = fc.oneof(fc.constantFrom(...ids, "run-1", "run-2"), fc.string({ maxLength: 5 }), value);
    const outcome = fc.oneof(fc.boolean(), fc.double(), value);
    const options = fc.oneof(
      value,
      fc.record(
        { weight: value, source: value, attribution: fc.oneof(value, fc.record({ mode: value, discount: value })) },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(id, outcome, options, async (i, y, o) => {
        await worksOrTypedError(() => router.feedback(i as string, y as boolean, o as never));
      }),
      { numRuns: 200 },
    );
    // Whatever was accepted left the learner usable.
    for (const m of learner.models()) expect(Array.from(learner.posterior(m).mean).every(Number.isFinite)).toBe(true);
  });
});

describe("learner events and state", () => {
  const known = [
    { id: "a", ability: [0.1, 0.2] },
    { id: "b", ability: [0.3, -0.1] },
  ];
  const num = fc.oneof(fc.double(), fc.constantFrom(0, 1, -1, 1e6, Number.NaN, Infinity, 0.5));
  const eventish = fc.record(
    {
      id: fc.oneof(fc.string({ maxLength: 4 }), value),
      model: fc.oneof(fc.constantFrom("a", "b", "zz", " "), value),
      alpha: fc.oneof(fc.array(num, { maxLength: 3 }), value),
      beta: fc.oneof(num, value),
      y: fc.oneof(num, value),
      weight: fc.oneof(num, value),
      at: fc.oneof(num, value),
    },
    { requiredKeys: [] },
  );

  it("observe: every generated event is applied or a typed error naming the field; the posterior stays finite", async () => {
    const l = new OnlineLearner(known, { unknownModels: "add" });
    await fc.assert(
      fc.asyncProperty(eventish, async (e) => {
        await worksOrTypedError(() => l.observe(e as never));
        for (const m of l.models()) expect(Array.from(l.posterior(m).mean).every(Number.isFinite)).toBe(true);
        await worksOrTypedError(() => OnlineLearner.fromState(JSON.parse(JSON.stringify(l.exportState()))));
      }),
      pureChecks,
    );
  });

  it("fromState: every mutation of a valid state restores or is a ValidationError naming the field", async () => {
    const base = new OnlineLearner(known).exportState();
    const paths = [
      "version",
      "dim",
      "population.mean",
      "population.nModels",
      "models.a.posterior.dim",
      "models.a.posterior.priorMean",
      "models.a.pendingDecay",
      "models.a.clock",
      "removed",
      "seenIds",
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), value, async (path, v) => {
        const state = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
        const keys = path.split(".");
        let at = state as Record<string, unknown>;
        for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
        at[keys.at(-1)!] = v;
        const restored = await worksOrTypedError(() => OnlineLearner.fromState(state));
        if (restored === "ok") {
          const l = OnlineLearner.fromState(state);
          for (const m of l.models()) l.score({ alpha: [0.1, 0.2], beta: 0 }, [m], "none");
        }
      }),
      pureChecks,
    );
  });
});

describe("store files", () => {
  it("a journal with generated damage opens or is a typed error naming the file", async () => {
    const dir = join(root, "store");
    const store = await FileStore.open(dir);
    for (let i = 0; i < 8; i++)
      await store.append([{ id: `e${i}`, model: "m", alpha: [0.5, -1], beta: 0.2, y: i % 2, at: i }]);
    await store.close();
    const pristine = await readFile(join(dir, "journal.jsonl"));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: pristine.length - 1 }),
        fc.oneof(fc.constant("truncate"), fc.constant("zero"), fc.integer({ min: 0, max: 255 })),
        async (offset, damage) => {
          let buf = Buffer.from(pristine);
          if (damage === "truncate") buf = buf.subarray(0, offset);
          else if (damage === "zero") buf.fill(0, offset);
          else buf[offset] = damage;
          await writeFile(join(dir, "journal.jsonl"), buf);
          const outcome = await worksOrTypedError(async () => (await FileStore.open(dir)).close());
          if (outcome === "ok") {
            const s = await FileStore.open(dir);
            expect((await s.load()).seq).toBeLessThanOrEqual(8);
            await s.close();
          }
          await writeFile(join(dir, "journal.jsonl"), pristine);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("your-own-data CSVs", () => {
  it("generated items and labels files load or are a typed error naming the file", async () => {
    const cell = fc.oneof(
      fc.constantFrom("q1", "q2", "m1", "1", "0", "", "0.5", "x", '"a,b"', "nan"),
      fc.string({ maxLength: 4 }),
    );
    const header = fc.oneof(
      fc.constant("item_id,text,category"),
      fc.constant("item_id,text"),
      fc.constant("item_id,txt"),
      fc.constant("item_id,text,ategory"),
      fc.constant("id,text"),
    );
    const rows = fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 4 });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(header, rows, rows, async (h, itemRows, labelRows) => {
        const dir = join(root, `data${n++}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "items.csv"), [h, ...itemRows.map((r) => r.join(","))].join("\n") + "\n");
        writeFileSync(join(dir, "models.csv"), "model_id\nm1\nm2\n");
        writeFileSync(
          join(dir, "labels.csv"),
          ["item_id,model_id,correct", ...labelRows.map((r) => r.join(","))].join("\n") + "\n",
        );
        await worksOrTypedError(() => loadOwnDataFolder(dir));
      }),
      { numRuns: 60 },
    );
  });
});
