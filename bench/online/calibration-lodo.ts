/**
 * `npm run bench:calibration-lodo [-- --datasets a,b --seeds 1,2,3 --seeds-for name=1,2,... --orders 5 --encoder static|use-lite --rules a,b --print]`
 * (the documented run, `--orders 10 --seeds-for terminal-bench-2-32models=1,...,10`: about 12 minutes of worlds from
 * cold caches and about 50 minutes of rule runs on the shared 2-core machine; about 1 minute cached)
 *
 * New-model calibration against random probing, leave one dataset out (docs/online.md, "Calibration on data it
 * was not tuned on"). Worlds as in `npm run bench:online` (an item model trained per seed without the dataset's
 * left-out models; each held-out model calibrated from the new-model prior on a 2,000-probe sample of its train-split
 * items, answered by replaying its recorded correctness), with each run measured twice per split (VALIDATION, for the
 * choice, and TEST): the probes until its predicted accuracy is first within 3 points of the true one (cap 300;
 * 301 = never), and, after 5, 10, 20 and 50 probes, the absolute error of its predicted accuracy and the routing
 * score (each item to the new model when its predictive p beats the best known model's). A rule that draws on the
 * random order runs in the same `orders` seeded orders as the random baseline (paired with them). For each held-out
 * dataset, the probe rule is the candidate (k adaptive probes before the random order or in its first places, or 1
 * adaptive probe in its place after its first j) with the best worst
 * validation ratio (median probes / median random probes) over the OTHER datasets, and, for the error-after-k tables,
 * the candidate with the smallest worst validation error excess over them; each is scored on the held-out dataset's
 * test split against random probing, with a bootstrap over the (model, seed) pairs.
 * Writes bench/results/calibration-lodo.json and the generated block of docs/online.md (unless --print).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { loadDataset } from "../../adapters/data/index.js";
import { getTf } from "../../adapters/tf.js";
import { splitIndices } from "../../src/data/split.js";
import { calibrateModel, ItemTracker, OnlineLearner, type CalibrationOptions } from "../../src/learning/index.js";
import { embeddingsFor } from "./embeddings.js";
import { listFlag, positiveIntFlag, scriptFlags, seedsForFlag } from "../flags.js";
import { calibrationSetup, type SimWorld } from "./sim.js";
import { defaultLeaveOut, validationWorld } from "./world.js";
import { predictiveP } from "../../src/learning/posterior.js";
import { sigmoid } from "../../src/util/maths.js";
import {
  AT_K,
  renderCalibrationLodo,
  resultJson,
  type AtK,
  type CalibrationLodoResult,
  type CalibrationPair,
} from "./calibration-lodo-report.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");

const DATASETS = [
  "mmlu-pro-29models",
  "routerdc-7models",
  "routerbench-subset-11models",
  "terminal-bench-2-32models",
] as const;

const argsSchema = z
  .object({
    datasets: listFlag(z.string()).default([...DATASETS]),
    seeds: listFlag(positiveIntFlag(undefined, { max: 20 })).default([1, 2, 3]),
    orders: positiveIntFlag(undefined, { max: 50 }).default(5),
    /** More (or other) seeds for one dataset: `name=1,2,...` (the small sets' pairs are cheap; their counts are few). */
    "seeds-for": seedsForFlag(),
    encoder: z.enum(["static", "use-lite"]).default("static"),
    rules: listFlag(z.string()).optional(),
    "data-root": z.string().optional(),
    print: z.boolean().default(false),
  })
  .strict();

type RuleOptions = Pick<
  CalibrationOptions,
  "strategy" | "randomShare" | "mixRandom" | "adaptiveProbes" | "handOver" | "randomFirst"
>;

/** The candidate probe rules (calibrateModel options); "random" is the baseline, run in `orders` seeded orders. */
export const RULES: Readonly<Record<string, { label: string; options: RuleOptions; bounded?: boolean }>> = {
  accuracy: { label: "accuracy-targeted", options: { strategy: "accuracy", adaptiveProbes: "all" } },
  fisher: { label: "Fisher about theta", options: { strategy: "fisher", adaptiveProbes: "all" } },
  "accuracy-mix50": {
    label: "accuracy-targeted, 50% random from the start",
    options: { strategy: "accuracy", randomShare: 0.5, mixRandom: "always", adaptiveProbes: "all" },
  },
  "accuracy-mix25": {
    label: "accuracy-targeted, 25% random from the start",
    options: { strategy: "accuracy", randomShare: 0.25, mixRandom: "always", adaptiveProbes: "all" },
  },
  "accuracy-conflict50": {
    label: "accuracy-targeted, 50% random once the answers contradict the prior",
    options: { strategy: "accuracy", randomShare: 0.5, mixRandom: "on-conflict", adaptiveProbes: "all" },
  },
  ...Object.fromEntries(
    [1, 2, 3, 5].map((k) => [
      `accuracy-head${k}`,
      {
        label: `accuracy-targeted for ${k} probe${k > 1 ? "s" : ""}, then random order (inserted before it)`,
        options: { strategy: "accuracy", adaptiveProbes: k, handOver: "insert", randomFirst: 0 } as RuleOptions,
        bounded: true,
      },
    ]),
  ),
  ...Object.fromEntries(
    [1, 2, 3].map((k) => [
      `accuracy-replace${k}`,
      {
        label: `accuracy-targeted for ${k} probe${k > 1 ? "s" : ""} in the random order's first place${k > 1 ? "s" : ""}, then random order`,
        options: { strategy: "accuracy", adaptiveProbes: k, handOver: "replace", randomFirst: 0 } as RuleOptions,
        bounded: true,
      },
    ]),
  ),
  ...Object.fromEntries(
    [3, 5, 10].map((j) => [
      `accuracy-after${j}`,
      {
        label: `${j} probes of the random order, then 1 accuracy-targeted in its place, then random order`,
        options: { strategy: "accuracy", adaptiveProbes: 1, randomFirst: j, handOver: "replace" } as RuleOptions,
        bounded: true,
      },
    ]),
  ),
};

/**
 * The rules a run compares by default: adaptive throughout, and the candidates (k adaptive probes before the random
 * order or in its first places, or 1 adaptive probe in its place after its first j). The mixing rules and "fisher" run with `--rules` (they lost to these in earlier runs: docs/online.md).
 */
const DEFAULT_RULES = [
  "accuracy",
  "accuracy-head1",
  "accuracy-head2",
  "accuracy-head3",
  "accuracy-replace1",
  "accuracy-replace2",
  "accuracy-replace3",
  "accuracy-after3",
  "accuracy-after5",
  "accuracy-after10",
];

type PairResult = CalibrationPair;

const CAP = 300;
const TOLERANCE = 0.03;
const BANK = 2000;

async function main(): Promise<void> {
  const args = scriptFlags(
    "bench:calibration-lodo",
    {
      datasets: { type: "string" },
      seeds: { type: "string" },
      orders: { type: "string" },
      "seeds-for": { type: "string", multiple: true },
      encoder: { type: "string" },
      rules: { type: "string" },
      "data-root": { type: "string" },
      print: { type: "boolean" },
    },
    argsSchema,
  );
  const rules = args.rules ?? DEFAULT_RULES;
  for (const r of rules)
    if (!RULES[r]) throw new Error(`--rules: unknown rule "${r}" (${Object.keys(RULES).join(", ")})`);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const t0 = performance.now();
  const { tf } = await getTf();
  const pairs: PairResult[] = [];
  const dataRoot = args["data-root"] ? { dataRoot: args["data-root"] } : {};
  for (const name of args.datasets) {
    const ds = await loadDataset(name, dataRoot);
    const split = splitIndices(
      ds.name,
      ds.items.map((it) => it.id),
    );
    const emb = await embeddingsFor(ds, log, args.encoder);
    for (const seed of args["seeds-for"].get(name) ?? args.seeds) {
      const w = await validationWorld(tf, ds, emb, split, defaultLeaveOut(ds.name), seed, log, false);
      for (const m of w.heldOut) {
        const key = { v: 2, data: ds.source.sha256, emb: emb.source, seed, m, orders: args.orders, cap: CAP };
        const pair = await cachedPair(key, rules, args.orders, async (missing) =>
          runPair(w, split.test, m, seed, missing, args.orders),
        );
        pairs.push({ dataset: ds.name, seed, model: w.models[m]!, ...pair });
        log(
          `${ds.name} seed ${seed} ${w.models[m]}: ` +
            rules.map((r) => `${r} ${pair.val[r]!.join(",")}/${pair.test[r]!.join(",")}`).join(", ") +
            `; random val ${pair.randomVal.join(",")} test ${pair.randomTest.join(",")}`,
        );
      }
    }
  }
  const result: CalibrationLodoResult = {
    datasets: [...new Set(pairs.map((p) => p.dataset))],
    seeds: args.seeds,
    ...(args["seeds-for"].size > 0 ? { seedsFor: Object.fromEntries(args["seeds-for"]) } : {}),
    orders: args.orders,
    encoder: args.encoder,
    rules: rules.map((r) => ({ id: r, label: RULES[r]!.label, bounded: RULES[r]!.bounded === true })),
    pairs,
    seconds: (performance.now() - t0) / 1000,
  };
  const md = renderCalibrationLodo(result);
  process.stdout.write(`${md}\n`);
  if (args.print) return;
  writeFileSync(join(here, "results", "calibration-lodo.json"), resultJson(result));
  const docPath = join(here, "..", "docs", "online.md");
  const doc = readFileSync(docPath, "utf8");
  const start = "<!-- calibration-lodo:start -->";
  const end = "<!-- calibration-lodo:end -->";
  if (!doc.includes(start)) {
    log(
      `bench:calibration-lodo: docs/online.md has no ${start} marker; wrote bench/results/calibration-lodo.json only`,
    );
    return;
  }
  writeFileSync(
    docPath,
    doc.slice(0, doc.indexOf(start)) + `${start}\n${md}\n${end}` + doc.slice(doc.indexOf(end) + end.length),
  );
  log("bench:calibration-lodo: wrote bench/results/calibration-lodo.json and its block of docs/online.md");
}

type PairCounts = Omit<PairResult, "dataset" | "seed" | "model"> & { hash?: Record<string, string> };

/** One pair's counts, cached per rule (so adding a rule reruns only that rule). */
async function cachedPair(
  key: object,
  rules: readonly string[],
  orders: number,
  compute: (missing: readonly string[] | "random") => Promise<Partial<PairCounts>>,
): Promise<PairCounts> {
  const file = join(
    here,
    "..",
    ".cache",
    "online-bench",
    `calib-lodo-${createHash("sha256").update(JSON.stringify(key)).digest("hex").slice(0, 16)}.json`,
  );
  const have: PairCounts = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as PairCounts)
    : { val: {}, test: {}, randomVal: [], randomTest: [], atK: { val: {}, test: {} } };
  if (have.randomVal.length === 0) {
    const got = await compute("random");
    Object.assign(have, { randomVal: got.randomVal, randomTest: got.randomTest });
    Object.assign(have.atK.val, got.atK!.val);
    Object.assign(have.atK.test, got.atK!.test);
  }
  const missing = rules.filter((r) => have.val[r] === undefined || ruleChanged(have, r, orders));
  if (missing.length > 0) {
    const got = await compute(missing);
    Object.assign(have.val, got.val);
    Object.assign(have.test, got.test);
    Object.assign(have.atK.val, got.atK!.val);
    Object.assign(have.atK.test, got.atK!.test);
  }
  have.hash = { ...(have.hash ?? {}), ...Object.fromEntries(rules.map((r) => [r, ruleHash(r, orders)])) };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(have));
  return {
    val: pick(have.val, rules),
    test: pick(have.test, rules),
    randomVal: have.randomVal,
    randomTest: have.randomTest,
    atK: { val: pick(have.atK.val, [...rules, "random"]), test: pick(have.atK.test, [...rules, "random"]) },
  };
}

/** A rule's cache identity: its options, and for a rule that draws on the random order the number of orders it is run in. */
const ruleHash = (r: string, orders: number) =>
  `counts-v3:${JSON.stringify(cacheOptions(RULES[r]!.options))}` +
  (usesOrder(RULES[r]!.options) ? `:orders${orders}` : "");

/**
 * A rule's options as cached: `handOver: "insert"` and `randomFirst: 0` left out (the hand-over rules ran so before
 * these options existed).
 */
const cacheOptions = (o: RuleOptions): RuleOptions => {
  const { handOver, randomFirst, ...rest } = o;
  return {
    ...rest,
    ...(randomFirst !== undefined && randomFirst !== 0 ? { randomFirst } : {}),
    ...(handOver !== undefined && handOver !== "insert" ? { handOver } : {}),
  };
};

/** Whether a rule draws on the seeded random order (then it is run in the baseline's orders, one count each). */
const usesOrder = (o: RuleOptions) => (o.randomShare ?? 0) > 0 || typeof o.adaptiveProbes === "number";
const ruleChanged = (have: PairCounts, r: string, orders: number) => have.hash?.[r] !== ruleHash(r, orders);
const pick = <T>(o: Record<string, T>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]!]));

type EvalSet = ReturnType<typeof evalSet>;

/**
 * The routing score on `s` with the new model's current posterior: each item goes to the new model when its predictive
 * p beats the best known model's p (point abilities), else to that model; the mean of the chosen models' labels.
 */
function routingScore(tracker: ItemTracker, s: EvalSet): number {
  const m = tracker.means();
  const s2 = tracker.variances();
  let sum = 0;
  for (let i = 0; i < s.yNew.length; i++) sum += predictiveP(m[i]!, s2[i]!) > s.knownP[i]! ? s.yNew[i]! : s.knownY[i]!;
  return sum / s.yNew.length;
}

/** Runs the missing rules (or the random orders) for held-out model `m` of world `w`. */
async function runPair(
  w: SimWorld,
  testRows: readonly number[],
  m: number,
  seed: number,
  what: readonly string[] | "random",
  orders: number,
): Promise<Partial<PairCounts>> {
  const setup = calibrationSetup(w, m, seed, BANK);
  const evalSets = { val: evalSet(w, m, w.test), test: evalSet(w, m, testRows) };
  const known = [...w.knownTheta.entries()].map(([k, theta]) => ({ id: w.models[k]!, ability: theta }));
  const run = async (options: RuleOptions, s: number) => {
    const learner = new OnlineLearner(known);
    const modelId = w.models[m]!;
    learner.addModel(modelId);
    const trackers = {
      val: new ItemTracker(learner.posterior(modelId), evalSets.val.alphas, evalSets.val.betas),
      test: new ItemTracker(learner.posterior(modelId), evalSets.test.alphas, evalSets.test.betas),
    };
    const first = { val: -1, test: -1 };
    const at: Record<"val" | "test", AtK> = { val: { err: [], route: [] }, test: { err: [], route: [] } };
    const check = (asked: number) => {
      for (const k of ["val", "test"] as const) {
        const err = Math.abs(trackers[k].predictedAccuracy() - evalSets[k].acc);
        if (first[k] < 0 && err <= TOLERANCE) first[k] = asked;
        if ((AT_K as readonly number[]).includes(asked)) {
          at[k].err.push(err);
          at[k].route.push(routingScore(trackers[k], evalSets[k]));
        }
      }
    };
    check(0);
    await calibrateModel({
      learner,
      modelId,
      probes: setup.bank,
      budget: CAP,
      ...options,
      seed: s,
      targetSd: 0,
      ask: async (probe) => setup.label.get(Number(probe.id))!,
      onProgress: (p) => check(p.asked),
    });
    // a bank smaller than k: the error and score after k probes are those of the whole bank
    for (const k of ["val", "test"] as const)
      while (at[k].err.length < AT_K.length) {
        at[k].err.push(Math.abs(trackers[k].predictedAccuracy() - evalSets[k].acc));
        at[k].route.push(routingScore(trackers[k], evalSets[k]));
      }
    trackers.val.dispose();
    trackers.test.dispose();
    return { val: first.val < 0 ? CAP + 1 : first.val, test: first.test < 0 ? CAP + 1 : first.test, at };
  };
  const atK: PairCounts["atK"] = { val: {}, test: {} };
  if (what === "random") {
    const randomVal: number[] = [];
    const randomTest: number[] = [];
    atK.val.random = [];
    atK.test.random = [];
    for (let o = 0; o < orders; o++) {
      const r = await run({ strategy: "random" }, seed * 101 + m + 7777 * o);
      randomVal.push(r.val);
      randomTest.push(r.test);
      atK.val.random.push(r.at.val);
      atK.test.random.push(r.at.test);
    }
    return { randomVal, randomTest, atK };
  }
  const val: Record<string, number[]> = {};
  const test: Record<string, number[]> = {};
  for (const r of what) {
    // a rule that draws on the random order runs in the baseline's orders (paired with them); others once
    const runs = usesOrder(RULES[r]!.options) ? orders : 1;
    val[r] = [];
    test[r] = [];
    atK.val[r] = [];
    atK.test[r] = [];
    for (let o = 0; o < runs; o++) {
      const got = await run(RULES[r]!.options, seed * 101 + m + 7777 * o);
      val[r].push(got.val);
      test[r].push(got.test);
      atK.val[r].push(got.at.val);
      atK.test[r].push(got.at.test);
    }
  }
  return { val, test, atK };
}

/**
 * Held-out model m's items among `rows`, with their parameters, its labels and true accuracy on them, and per item
 * the known model a router would pick without it (highest p among the known models with a label there): its p and label.
 */
function evalSet(w: SimWorld, m: number, rows: readonly number[]) {
  const items: number[] = [];
  const yNew: number[] = [];
  const knownP: number[] = [];
  const knownY: number[] = [];
  for (const i of rows) {
    let own: number | undefined;
    let bestZ = -Infinity;
    let bestY = 0;
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) {
      const k = w.model[j]!;
      if (k === m) own = w.y[j]!;
      const theta = w.knownTheta.get(k);
      if (!theta) continue;
      let z = -w.betas[i]!;
      for (let c = 0; c < w.d; c++) z += w.alphas[i * w.d + c]! * theta[c]!;
      if (z > bestZ) {
        bestZ = z;
        bestY = w.y[j]!;
      }
    }
    if (own === undefined) continue;
    items.push(i);
    yNew.push(own);
    // no known model labelled here: the new model is the only candidate
    knownP.push(bestZ === -Infinity ? -1 : sigmoid(bestZ));
    knownY.push(bestY);
  }
  const alphas = new Float32Array(items.length * w.d);
  items.forEach((i, k) => alphas.set(w.alphas.subarray(i * w.d, (i + 1) * w.d), k * w.d));
  return {
    alphas,
    betas: Float32Array.from(items, (i) => w.betas[i]!),
    acc: yNew.reduce((a, b) => a + b, 0) / items.length,
    yNew: Float64Array.from(yNew),
    knownP: Float64Array.from(knownP),
    knownY: Float64Array.from(knownY),
  };
}

await main();
