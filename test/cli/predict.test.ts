import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { command, predictDataset } from "../../adapters/cli/commands/predict.js";
import { main } from "../../adapters/cli/main.js";
import { embedDataset } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { ArtifactError, DatasetNotFoundError, IrtRouterError, ValidationError } from "../../src/errors.js";
import { PREDICT_CALIBRATION_FILE } from "../../adapters/artifact/interval-calibration.js";
import { parseWith } from "../../src/util/validate.js";
import { TestEncoder } from "../data/test-encoder.js";
import { rejectedWith } from "../errors.js";
import { saveToyScorer, TOY_ARCH } from "../scorer/helpers.js";

// A your-own-data folder: 40 items, models "a" (every item), "b" (half) and "newbie" (unknown to the scorer),
// a toy scorer over a, b, c built with encoder "toy@1", and the folder's vectors from that encoder cached.
const tmp = mkdtempSync(join(tmpdir(), "irt-router-predict-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const folder = join(tmp, "my-evals");
mkdirSync(folder);
const n = 40;
writeFileSync(
  join(folder, "items.csv"),
  "item_id,text\n" + Array.from({ length: n }, (_, i) => `q${i},question ${i}`).join("\n") + "\n",
);
const labelRows = Array.from({ length: n }, (_, i) => [
  `q${i},a,${i % 4 === 0 ? 0 : 1}`,
  ...(i % 2 ? [`q${i},b,${i % 3 === 0 ? 1 : 0}`] : []),
  `q${i},newbie,${i % 5 ? 1 : 0}`,
]).flat();
writeFileSync(join(folder, "labels.csv"), "item_id,model,correct\n" + labelRows.join("\n") + "\n");
const cache = join(tmp, "cache");
await embedDataset(await loadDataset(folder), new TestEncoder("toy@1", TOY_ARCH.inDim), { cacheDir: cache });
const scorerDir = await saveToyScorer(join(tmp, "toy-scorer"), "toy@1", ["a", "b", "c"]);
const parse = (v: Record<string, unknown>) => parseWith(command.schema, v, "options");
const base = { dataset: folder, model: scorerDir, "cache-dir": cache };

describe("irt-router predict arguments", () => {
  it("has defaults and names the bad flag", () => {
    expect(parse({ dataset: "x" })).toMatchObject({ dataset: "x", probes: 0, seed: 0, json: false });
    expect(parse({ dataset: "x", models: "a, b", probes: "10" })).toMatchObject({ models: ["a", "b"], probes: 10 });
    expect(() => parse({})).toThrow(/options\.dataset: is required/);
    expect(() => parse({ dataset: "x", probes: "-1" })).toThrow(/options\.probes/);
    expect(() => parse({ dataset: "x", models: " , " })).toThrow(/options\.models/);
    expect(() => parse({ dataset: "x", endpoint: "http://x" })).toThrow(/options\.endpoint/);
  });
});

describe("irt-router predict on a your-own-data folder", () => {
  it("predicts the scorer's known models from the scorer alone, with the dataset's own record beside it", async () => {
    const { rows } = await predictDataset(parse({ ...base, models: "a,b,c" }), () => {});
    expect(rows.map((r) => [r.name, r.known, r.probes, r.observedItems])).toEqual([
      ["a", true, 0, 40],
      ["b", true, 0, 20],
      ["c", true, 0, 0],
    ]);
    for (const r of rows) {
      expect(r.items).toBe(n);
      expect(r.accuracy).toBeGreaterThan(0);
      expect(r.accuracy).toBeLessThan(1);
      expect(r.interval[0]).toBeLessThanOrEqual(r.accuracy);
      expect(r.interval[1]).toBeGreaterThanOrEqual(r.accuracy);
    }
    expect(rows[0]!.observed).toBeCloseTo(0.75, 10);
    expect(rows[2]!.observed).toBeUndefined();
  });

  it("refuses a model the scorer does not know without probes, saying to give --probes", async () => {
    const err = await rejectedWith(
      IrtRouterError,
      predictDataset(parse({ ...base, models: "a,newbie" }), () => {}),
    );
    expect(err).toMatchObject({ code: "UNKNOWN_MODEL", path: "options.models.1" });
    expect(err.message).toMatch(/--probes is 0.*Give --probes N .* of its 40 labelled results/);
  });

  it("predicts today's models the scorer lacks from their current-models catalog prior, as a router starts them", async () => {
    // the shipped static scorer (the default), whose scale the catalog's priors are fitted on
    const args = { dataset: folder, "cache-dir": cache };
    const err = await rejectedWith(
      IrtRouterError,
      predictDataset(parse({ ...args, models: "gpt-4o,claude-sonnet-4-5,a" }), () => {}),
    );
    expect(err).toMatchObject({ code: "UNKNOWN_MODEL", path: "options.models.2" }); // "a" is in neither
    const { rows } = await predictDataset(parse({ ...args, models: "gpt-4o,claude-sonnet-4-5" }), () => {});
    expect(rows.map((r) => [r.name, r.known, r.prior, r.probes, r.catalogPrior?.method])).toEqual([
      ["gpt-4o", false, "start", 0, "published"],
      ["claude-sonnet-4-5", false, "start", 0, "terminal-bench"],
    ]);
    for (const r of rows) expect(r.interval[0] < r.accuracy && r.accuracy < r.interval[1]).toBe(true);
  });

  it("predicts it from replayed probes, the interval narrowing with more of them", async () => {
    const notes: string[] = [];
    const few = (await predictDataset(parse({ ...base, models: "newbie", probes: "3" }), (l) => notes.push(l)))
      .rows[0]!;
    const many = (await predictDataset(parse({ ...base, models: "newbie", probes: "60" }), (l) => notes.push(l)))
      .rows[0]!;
    expect(few).toMatchObject({ known: false, probes: 3 });
    expect(many.probes).toBe(40); // every labelled item, said on stderr
    expect(notes.join("\n")).toMatch(/"newbie" has 40 labelled items .* fewer than --probes 60; all 40 are used/);
    expect(many.accuracy).toBeCloseTo(0.8, 10); // every item was probed: its observed outcomes
    expect(many.interval[1] - many.interval[0]).toBeLessThan(1e-12);
    expect(few.interval[1] - few.interval[0]).toBeGreaterThan(0.01);
  });

  it("refuses --probes for a model the dataset has no labels of", async () => {
    const err = await rejectedWith(
      ValidationError,
      predictDataset(parse({ ...base, models: "c", probes: "5" }), () => {}),
    );
    expect(err).toMatchObject({ path: "options.probes" });
    expect(err.message).toMatch(/has none of "c"/);
  });

  it("prints JSON through the CLI, and a typed error for an unknown dataset", async () => {
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (out.push(s), true)) as typeof process.stdout.write;
    let code: number;
    try {
      code = await main([
        "predict",
        "--dataset",
        folder,
        "--model",
        scorerDir,
        "--cache-dir",
        cache,
        "--models",
        "a,b",
        "--json",
      ]);
    } finally {
      process.stdout.write = write;
    }
    expect(code).toBe(0);
    const json = JSON.parse(out.join("")) as {
      dataset: string;
      items: number;
      probes: number;
      models: Record<string, unknown>[];
    };
    expect(json).toMatchObject({ dataset: "my-evals", items: n, probes: 0 });
    expect(json.models.map((m) => m.name)).toEqual(["a", "b"]);
    expect(Object.keys(json.models[0]!).sort()).toEqual([
      "accuracy",
      "calibrated",
      "interval",
      "items",
      "known",
      "model",
      "name",
      "observed",
      "observedItems",
      "prior",
      "probes",
      "sd",
    ]);
    await rejectedWith(
      DatasetNotFoundError,
      predictDataset(parse({ ...base, dataset: join(tmp, "no-such-folder") }), () => {}),
    );
  });

  it("applies the scorer directory's calibration to catalogued models, unless --uncalibrated; a bad file is refused", async () => {
    const file = join(scorerDir, PREDICT_CALIBRATION_FILE);
    const cal = { shrinkWeight: 0.5, shiftVariance: { "0": 0.01, "10": 0.004 }, fittedOn: "test" };
    writeFileSync(file, JSON.stringify(cal));
    try {
      const args = { ...base, model: scorerDir, "cache-dir": cache, models: "a,b" };
      const { rows } = await predictDataset(parse(args), () => {});
      const { rows: raw } = await predictDataset(parse({ ...args, uncalibrated: true }), () => {});
      for (const [k, r] of rows.entries()) {
        const plain = raw[k]!;
        expect(plain.calibrated).toBe(false);
        if (!r.known) {
          expect(r.calibrated).toBe(false);
          continue;
        }
        expect(r.calibrated).toBe(true);
        expect(r.scorer!.accuracy).toBeCloseTo(plain.accuracy, 12);
        // a predictive interval: at least as wide as the item noise at tau^2 = 0.01 alone
        expect(r.interval[1] - r.interval[0]).toBeGreaterThan(2 * 1.95 * Math.sqrt(0.01) - 1e-9);
      }
      expect(rows.some((r) => r.calibrated)).toBe(true);
      writeFileSync(file, JSON.stringify({ ...cal, shrinkWeight: 2 }));
      const e = await rejectedWith(
        ArtifactError,
        predictDataset(parse(args), () => {}),
      );
      expect(e.message).toContain("shrinkWeight");
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe("irt-router predict on a built-in dataset", () => {
  it("predicts every model column of routerbench-subset-11models, with probes", async () => {
    const ds = await loadDataset("routerbench-subset-11models");
    const builtinCache = join(tmp, "builtin-cache");
    await embedDataset(ds, new TestEncoder("toy@1", TOY_ARCH.inDim), { cacheDir: builtinCache });
    const dir = await saveToyScorer(join(tmp, "toy-routerbench"), "toy@1", ds.models);
    const { rows } = await predictDataset(
      parse({ dataset: ds.name, model: dir, "cache-dir": builtinCache, probes: "10" }),
      () => {},
    );
    expect(rows.map((r) => r.name)).toEqual([...ds.models]);
    expect(rows.every((r) => r.known && r.probes === 10 && r.items === ds.items.length && r.observedItems > 0)).toBe(
      true,
    );
  });
});
