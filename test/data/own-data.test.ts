import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { loadOwnDataFolder, writeOwnDataFolder } from "../../adapters/data/own-data.js";
import { DatasetFormatError, DatasetNotFoundError, ValidationError } from "../../src/errors.js";
import { costOf, labelOf } from "../../src/data/csr.js";
import { datasetSplits, selectItems } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { trainScorerPipeline } from "../../adapters/artifact/train-pipeline.js";
import { runEvaluation } from "../../adapters/eval/run.js";
import { artifactFiles, type ScorerArtifact } from "../../src/scorer/artifact.js";
import { TestEncoder } from "./test-encoder.js";

const root = mkdtempSync(join(tmpdir(), "irt-router-own-data-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

/** Write a folder named `name` holding the given files (string or Buffer contents). */
function folder(files: Record<string, string | Buffer>, name = `ds${counter++}`): string {
  const dir = join(root, `case${counter++}`, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

const ITEMS = 'item_id,text,category\nq1,What is 2+2?,math\nq2,"Name a colour, any colour",misc\n';
const LABELS = "item_id,model,correct,cost_usd\nq1,big,1,0.002\nq1,small,0,0.0001\nq2,small,0.5,\n";

async function formatError(files: Record<string, string | Buffer>): Promise<DatasetFormatError> {
  const dir = folder(files);
  try {
    await loadOwnDataFolder(dir);
  } catch (error) {
    expect(error).toBeInstanceOf(DatasetFormatError);
    return error as DatasetFormatError;
  }
  throw new Error("expected a DatasetFormatError");
}

describe("your-own-data folder: reading", () => {
  it("loads items, labels, graded labels, cost and prices", async () => {
    const dir = folder(
      {
        "items.csv": ITEMS,
        "labels.csv": LABELS,
        "models.csv": "model,input_usd_per_1m,output_usd_per_1m\nsmall,0.1,0.2\nbig,10,30\n",
      },
      "my-evals",
    );
    const ds = await loadDataset(dir);
    expect(ds.name).toBe("my-evals");
    expect(ds.models).toEqual(["small", "big"]); // models.csv order first
    expect(ds.items).toEqual([
      { id: "q1", text: "What is 2+2?", category: "math" },
      { id: "q2", text: "Name a colour, any colour", category: "misc" },
    ]);
    expect(labelOf(ds, 0, 1)).toBe(1);
    expect(labelOf(ds, 0, 0)).toBe(0);
    expect(labelOf(ds, 1, 0)).toBe(0.5);
    expect(labelOf(ds, 1, 1)).toBeUndefined(); // unobserved, not 0
    expect(ds.labelKind).toBe("graded");
    expect(costOf(ds, 0, 1)).toBeCloseTo(0.002, 9);
    expect(Number.isNaN(costOf(ds, 1, 0)!)).toBe(true); // blank cost = unknown
    expect(ds.prices).toEqual({
      small: { inputPer1M: 0.1, outputPer1M: 0.2 },
      big: { inputPer1M: 10, outputPer1M: 30 },
    });
    expect(ds.source.files).toEqual(["items.csv", "models.csv", "labels.csv"]);
  });

  it("accepts .csv.gz and .jsonl, keeps extra item columns as meta and items without labels", async () => {
    const dir = folder({
      "items.csv.gz": gzipSync("item_id,text,source\n1,hello,web\n2,unlabelled item,web\n"),
      "labels.jsonl": '{"item_id": 1, "model": "m", "correct": true}\n\n{"item_id": "2", "model": "m", "correct": 0}\n',
    });
    const ds = await loadOwnDataFolder(dir);
    expect(ds.items[0]).toEqual({ id: "1", text: "hello", meta: { source: "web" } });
    expect(ds.labels.offsets).toEqual(Int32Array.from([0, 1, 2]));
    expect(Array.from(ds.labels.y)).toEqual([1, 0]);
    expect(ds.labels.cost).toBeUndefined();
    expect(ds.labelKind).toBe("binary");
    const noLabels = await loadOwnDataFolder(
      folder({ "items.csv": "item_id,text\na,x\nb,y\n", "labels.csv": "item_id,model,correct\na,m,1\n" }),
    );
    expect(noLabels.items.map((i) => i.id)).toEqual(["a", "b"]);
    expect(Array.from(noLabels.labels.offsets)).toEqual([0, 1, 1]);
  });

  it("changes source.sha256 when a byte changes", async () => {
    const a = await loadOwnDataFolder(folder({ "items.csv": ITEMS, "labels.csv": LABELS }, "same"));
    const b = await loadOwnDataFolder(
      folder({ "items.csv": ITEMS, "labels.csv": LABELS.replace("0.002", "0.003") }, "same"),
    );
    const c = await loadOwnDataFolder(folder({ "items.csv": ITEMS, "labels.csv": LABELS }, "same"));
    expect(a.source.sha256).not.toBe(b.source.sha256);
    expect(a.source.sha256).toBe(c.source.sha256);
  });
});

describe("your-own-data folder: every bad row is a DatasetFormatError with file and line", () => {
  const cases: [string, Record<string, string>, string, number, RegExp][] = [
    [
      "unknown item",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,1\nq9,m,1\n" },
      "labels.csv",
      3,
      /unknown item "q9"/,
    ],
    [
      "duplicate (item, model) pair",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,1\nq2,m,1\nq1,m,0\n" },
      "labels.csv",
      4,
      /duplicate label.*line 2/,
    ],
    [
      "correct not a number",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,yes\n" },
      "labels.csv",
      2,
      /number in \[0, 1\]/,
    ],
    [
      "correct above 1",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,1\nq2,m,1.5\n" },
      "labels.csv",
      3,
      /number in \[0, 1\]/,
    ],
    [
      "correct in hex",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,0x1\n" },
      "labels.csv",
      2,
      /number in \[0, 1\]/,
    ],
    [
      "correct negative",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,-0.1\n" },
      "labels.csv",
      2,
      /number in \[0, 1\]/,
    ],
    [
      "correct blank",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,\n" },
      "labels.csv",
      2,
      /"correct" must be/,
    ],
    [
      "negative cost",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct,cost_usd\nq1,m,1,-2\n" },
      "labels.csv",
      2,
      /cost must be/,
    ],
    [
      "empty text",
      { "items.csv": 'item_id,text\nq1,ok\nq2,"  "\n', "labels.csv": "item_id,model,correct\n" },
      "items.csv",
      3,
      /empty text/,
    ],
    [
      "duplicate item id",
      { "items.csv": "item_id,text\nq1,a\nq2,b\nq1,c\n", "labels.csv": "item_id,model,correct\n" },
      "items.csv",
      4,
      /duplicate item id "q1".*line 2/,
    ],
    [
      "empty item id",
      { "items.csv": "item_id,text\n,a\n", "labels.csv": "item_id,model,correct\n" },
      "items.csv",
      2,
      /"item_id" must be a non-empty/,
    ],
    [
      "unterminated quote",
      { "items.csv": 'item_id,text\nq1,"open\nq2,b\n', "labels.csv": "item_id,model,correct\n" },
      "items.csv",
      2,
      /unterminated/,
    ],
    [
      "wrong column count",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq1,m,1\nq2,m\n" },
      "labels.csv",
      3,
      /expected 3 columns/,
    ],
    [
      "missing header columns",
      { "items.csv": ITEMS, "labels.csv": "item,model,score\nq1,m,1\n" },
      "labels.csv",
      1,
      /missing header columns "item_id", "correct"/,
    ],
    [
      "unknown labels column",
      { "items.csv": ITEMS, "labels.csv": "item_id,model,correct,note\nq1,m,1,x\n" },
      "labels.csv",
      1,
      /unknown column "note"/,
    ],
    [
      "malformed JSON line",
      { "items.csv": ITEMS, "labels.jsonl": '{"item_id":"q1","model":"m","correct":1}\n{"item_id":"q2",\n' },
      "labels.jsonl",
      2,
      /not valid JSON/,
    ],
    [
      "JSON line missing a field",
      { "items.jsonl": '{"item_id":"q1","text":"a"}\n{"item_id":"q2"}\n', "labels.csv": "item_id,model,correct\n" },
      "items.jsonl",
      2,
      /missing field "text"/,
    ],
    [
      "JSON correct as a string",
      { "items.csv": ITEMS, "labels.jsonl": '{"item_id":"q1","model":"m","correct":"high"}\n' },
      "labels.jsonl",
      1,
      /number in \[0, 1\]/,
    ],
    [
      "duplicate model in models.csv",
      {
        "items.csv": ITEMS,
        "labels.csv": LABELS,
        "models.csv": "model,input_usd_per_1m,output_usd_per_1m\nbig,1,2\nbig,1,2\n",
      },
      "models.csv",
      3,
      /listed twice/,
    ],
    [
      "half a price",
      { "items.csv": ITEMS, "labels.csv": LABELS, "models.csv": "model,input_usd_per_1m,output_usd_per_1m\nbig,1,\n" },
      "models.csv",
      2,
      /give both/,
    ],
  ];
  for (const [what, files, file, line, message] of cases) {
    it(what, async () => {
      const error = await formatError(files);
      expect(error.file?.endsWith(file), error.message).toBe(true);
      expect(error.line).toBe(line);
      expect(error.message).toMatch(message);
      expect(error.code).toBe("DATASET_FORMAT");
    });
  }

  it("refuses a folder with two formats of the same table", async () => {
    const error = await formatError({ "items.csv": ITEMS, "items.jsonl": "", "labels.csv": LABELS });
    expect(error.message).toMatch(/items.csv and items.jsonl/);
  });

  it("a folder without labels is not found, saying what is missing", async () => {
    await expect(loadOwnDataFolder(folder({ "items.csv": ITEMS }))).rejects.toThrow(DatasetNotFoundError);
    await expect(loadOwnDataFolder(folder({ "items.csv": ITEMS }))).rejects.toThrow(/Missing: labels/);
  });

  it("rejects options that do not apply", async () => {
    await expect(loadDataset(folder({ "items.csv": ITEMS, "labels.csv": LABELS }), { labels: "soft" })).rejects.toThrow(
      ValidationError,
    );
    await expect(
      loadDataset(folder({ "items.csv": ITEMS, "labels.csv": LABELS }), { dataroot: "x" } as never),
    ).rejects.toThrow(ValidationError);
  });
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function expectSameDataset(a: CorrectnessDataset, b: CorrectnessDataset): void {
  expect(b.name).toBe(a.name);
  expect(b.models).toEqual(a.models);
  const key = (ds: CorrectnessDataset) => JSON.stringify(ds.items.map((i) => [i.id, i.text, i.category ?? null]));
  expect(key(b) === key(a), "items (id, text, category)").toBe(true);
  // Byte comparison: vitest's deep equality is slow on typed arrays of 350k entries.
  const bytes = (v?: ArrayBufferView) => (v ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : undefined);
  for (const key of ["offsets", "model", "y", "cost"] as const) {
    expect(bytes(b.labels[key])?.equals(bytes(a.labels[key])!) ?? a.labels[key] === undefined, `labels.${key}`).toBe(
      true,
    );
  }
  expect(b.labelKind).toBe(a.labelKind);
  expect(datasetSplits(b)).toEqual(datasetSplits(a));
}

describe("writeOwnDataFolder round trip on real data", () => {
  it("routerbench-subset-11models converts to csv, csv.gz and jsonl and loads back identical", async () => {
    const ds = await loadDataset("routerbench-subset-11models");
    for (const format of ["csv", "csv.gz", "jsonl"] as const) {
      const dir = join(root, `rt-${format}`, ds.name);
      const written =
        format === "jsonl" ? await writeOwnDataFolder(ds, dir, format) : await writeOwnDataFolder(ds, dir, { format });
      expect(written.map((p) => p.slice(dir.length + 1))).toEqual([
        `items.${format}`,
        `labels.${format}`,
        `models.${format}`,
      ]);
      const back = await loadDataset(dir);
      expectSameDataset(ds, back);
      const s = datasetSplits(back);
      expect([s.train.length, s.val.length, s.test.length]).toEqual([2_541, 323, 300]);
    }
    await expect(writeOwnDataFolder(ds, join(root, "rt-csv", ds.name))).rejects.toThrow(/already holds/);
    await expect(writeOwnDataFolder(ds, join(root, "rt-bad"), "xml" as never)).rejects.toThrow(/options.format/);
  });

  it("mmlu-pro-29models (unobserved cells) and routerdc soft scores (graded labels) survive the round trip", async () => {
    // 3,000-item slices keep the test fast; the slice of mmlu holds unobserved cells.
    const mmlu = selectItems(await loadDataset("mmlu-pro-29models"), range(3_000));
    expect(mmlu.labels.y.length).toBeLessThan(3_000 * 29);
    const dirM = join(root, "rt-mmlu", mmlu.name);
    await writeOwnDataFolder(mmlu, dirM, { format: "csv.gz" });
    expectSameDataset(mmlu, await loadDataset(dirM));
    const soft = selectItems(await loadDataset("routerdc-7models", { labels: "soft" }), range(3_000));
    expect(soft.labelKind).toBe("graded");
    const dirS = join(root, "rt-soft", soft.name);
    await writeOwnDataFolder(soft, dirS, { format: "jsonl" });
    expectSameDataset(soft, await loadDataset(dirS));
  });
});

describe("irt-router train and eval on a your-own-data folder give the dataset's own figures", () => {
  // The whole of RouterBench, written as a your-own-data folder named like the dataset (D of the split rule), then
  // trained on and evaluated through both loaders: what `irt-router train|eval --dataset <name-or-folder>` run
  // (trainScorerPipeline, runEvaluation). Texts are embedded by a cheap deterministic encoder (a hash of the text),
  // so a different text, label, cost, model order or split changes the figures; the irt-moe row is a small
  // configuration trained for a few epochs.
  const name = "routerbench-subset-11models";
  const encoder = new TestEncoder("own-data-hash@1", 16);
  const tiny = { experts: 2, hidden: 16, out: 8, abilityDim: 4, batchItems: 256, maxEpochs: 3 };
  const embed = async (ds: CorrectnessDataset) => {
    const X = new Float32Array(ds.items.length * encoder.dim);
    ds.items.forEach((it, i) => X.set(TestEncoder.vector(it.text, encoder.dim), i * encoder.dim));
    return { X, dim: encoder.dim, encoderId: encoder.id };
  };
  const sink = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
  const withoutTimes = (report: unknown) =>
    JSON.stringify(report, (key, value) => (key === "trainSeconds" || key === "inferMsPerQuery" ? undefined : value));
  let folder = "";

  it("writes the folder", async () => {
    folder = join(root, "figures", name);
    await writeOwnDataFolder(await loadDataset(name), folder, { format: "csv.gz" });
  });

  it("eval: every method's figures, per category and cost-aware, are identical", async () => {
    const run = (dataset: string) =>
      runEvaluation({
        dataset,
        seeds: 1,
        methods: ["irt-moe", "knn", "logistic-regression"],
        log: sink,
        embed,
        irtMoeConfig: tiny,
      });
    const own = await run(name);
    const fromFolder = await run(folder);
    expect(fromFolder.dataset.name).toBe(name);
    expect(fromFolder.report.counts).toEqual({ train: 2_541, val: 323, test: 300 });
    expect(fromFolder.report.methods.map((m) => m.name)).toEqual([
      "irt-moe",
      "irt-moe+task",
      "knn",
      "logistic-regression",
      "best-single",
      "best-per-task",
      "random",
      "oracle",
    ]);
    expect(fromFolder.report.methods[0]!.costAware?.hullArea).toBeGreaterThan(0);
    expect(withoutTimes(fromFolder.report)).toBe(withoutTimes(own.report));
  }, 120_000);

  it("train: the same weights, catalog, metrics and known-model prior", async () => {
    const train = (dataset: string, cache: string) =>
      trainScorerPipeline([dataset], { encoder, cacheDir: join(root, cache), config: tiny, seed: 1 });
    const own = (await train(name, "cache-own")).artifact;
    const fromFolder = (await train(folder, "cache-folder")).artifact;
    const files = (a: ScorerArtifact) =>
      artifactFiles({
        ...a,
        createdAt: "x",
        training: { ...a.training, trainSeconds: 0, datasets: a.training.datasets.map(({ sha256: _, ...d }) => d) },
      });
    const [a, b] = [files(own), files(fromFolder)];
    expect(Buffer.from(b["weights.bin"]).equals(Buffer.from(a["weights.bin"])), "weights.bin").toBe(true);
    expect(Buffer.from(b["catalog.json"]).equals(Buffer.from(a["catalog.json"])), "catalog.json").toBe(true);
    expect(new TextDecoder().decode(b["manifest.json"])).toBe(new TextDecoder().decode(a["manifest.json"]));
    expect(Object.keys(fromFolder.metrics)).toEqual([name]);
    expect(fromFolder.training.datasets[0]!.counts).toEqual({ train: 2_541, val: 323, test: 300 });
  }, 120_000);
});
