/** The leave-one-dataset-out calibration study: its result type, the choice rule and its markdown. */
import { mdTable } from "../perf/section.js";
import { DEFAULT_ADAPTIVE_PROBES, DEFAULT_HAND_OVER, DEFAULT_RANDOM_FIRST } from "../../src/learning/probe-picker.js";
import { seededRng } from "../../src/util/random.js";

/**
 * One (dataset, seed, held-out model) pair: probes to within 3 points, per rule and per random order. A rule that
 * draws on the random order (mixing, or handing over to it) is run in the same seeded orders as the random baseline,
 * one count per order; a deterministic rule has one count.
 */
export interface CalibrationPair {
  dataset: string;
  seed: number;
  model: string;
  val: Record<string, number[]>;
  test: Record<string, number[]>;
  randomVal: number[];
  randomTest: number[];
  /**
   * Per rule (and "random"), one entry per run in the order of the counts: the absolute error of the predicted
   * accuracy and the routing score, after each of {@link AT_K} probes, on the validation and test splits.
   */
  atK: { val: Record<string, AtK[]>; test: Record<string, AtK[]> };
}

/** Probes after which the error-after-k measures are read. */
export const AT_K = [5, 10, 20, 50] as const;

/** One run's measures after each of {@link AT_K} probes (same index). */
export interface AtK {
  /** |predicted accuracy - true accuracy| on the split's items of the held-out model. */
  err: number[];
  /** Mean label of the model a router picks per item: the new model if its predictive p beats the best known one's. */
  route: number[];
}

export interface CalibrationLodoResult {
  datasets: string[];
  seeds: number[];
  /** Datasets run on other seeds than `seeds`. */
  seedsFor?: Record<string, number[]>;
  orders: number;
  encoder: string;
  /** `bounded`: the rule hands over to the random order after a bounded number of adaptive probes (a candidate). */
  rules: { id: string; label: string; bounded?: boolean }[];
  pairs: CalibrationPair[];
  seconds: number;
}

const RESAMPLES = 2000;
const BOOTSTRAP_SEED = 12345;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The result as bench/results/calibration-lodo.json holds it: indented, but one line per (model, seed) pair (their
 * per-order probe counts and errors, indented, made a 5 MB file).
 */
export function resultJson(r: CalibrationLodoResult): string {
  const lines = JSON.stringify({ ...r, pairs: [] }, null, 2).split("\n");
  const at = lines.findIndex((l) => l.startsWith('  "pairs": []'));
  const comma = lines[at]!.endsWith(",") ? "," : "";
  lines.splice(at, 1, '  "pairs": [', r.pairs.map((p) => `    ${JSON.stringify(p)}`).join(",\n"), `  ]${comma}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Median probes of `rule` over the pairs (its runs pooled), divided by the median of the pooled random orders (split:
 * val or test).
 */
export function ratio(pairs: readonly CalibrationPair[], rule: string, split: "val" | "test"): number {
  const r = median(pairs.flatMap((p) => p[split][rule]!));
  const q = median(pairs.flatMap((p) => (split === "val" ? p.randomVal : p.randomTest)));
  return q > 0 ? r / q : r > 0 ? Infinity : 1;
}

/**
 * The candidate with the smallest worst `score` over `datasets` (ties: the earlier rule), among the candidates: the
 * rules that hand over to the random order after a bounded number of adaptive probes, when the run has any (the
 * others cannot be kept from losing to random order on a bank that misleads; they are shown for comparison).
 */
function chooseRuleBy(
  r: CalibrationLodoResult,
  datasets: readonly string[],
  score: (pairs: CalibrationLodoResult["pairs"], id: string) => number,
): string {
  const candidates = r.rules.some((x) => x.bounded) ? r.rules.filter((x) => x.bounded) : r.rules;
  let best = candidates[0]!.id;
  let bestV = Infinity;
  for (const { id } of candidates) {
    const v = Math.max(
      ...datasets.map((d) =>
        score(
          r.pairs.filter((p) => p.dataset === d),
          id,
        ),
      ),
    );
    if (v < bestV) {
      bestV = v;
      best = id;
    }
  }
  return best;
}

/** The rule with the best worst validation ratio of probes to the first crossing over `datasets` ({@link chooseRuleBy}). */
export function chooseRule(r: CalibrationLodoResult, datasets: readonly string[]): string {
  return chooseRuleBy(r, datasets, (pairs, id) => ratio(pairs, id, "val"));
}

/**
 * Test-split comparison of `rule` with random probing on the pairs: the medians, their ratio with a 95% bootstrap
 * interval over the pairs (random orders resampled with their pair), and the mean paired difference (the rule's
 * probes minus the mean of the pair's random orders) with its interval.
 */
export function versusRandom(pairs: readonly CalibrationPair[], rule: string, split: "val" | "test" = "test") {
  const rand = (p: CalibrationPair) => (split === "val" ? p.randomVal : p.randomTest);
  const diff = (ps: readonly CalibrationPair[]) =>
    ps.reduce((a, p) => a + meanOf(p[split][rule]!) - meanOf(rand(p)), 0) / ps.length;
  const [ratioCi, meanDiffCi] = bootstrap(pairs, [(s) => ratio(s, rule, split), diff]);
  return {
    pairs: pairs.length,
    rule: median(pairs.flatMap((p) => p[split][rule]!)),
    random: median(pairs.flatMap(rand)),
    ratio: ratio(pairs, rule, split),
    ratioCi: ratioCi!,
    meanDiff: diff(pairs),
    meanDiffCi: meanDiffCi!,
  };
}

/** 95% percentile intervals of each statistic over {@link RESAMPLES} bootstrap resamples of the pairs. */
function bootstrap(
  pairs: readonly CalibrationPair[],
  stats: readonly ((sample: readonly CalibrationPair[]) => number)[],
): [number, number][] {
  const rng = seededRng(BOOTSTRAP_SEED);
  const draws = stats.map(() => [] as number[]);
  for (let b = 0; b < RESAMPLES; b++) {
    const sample = pairs.map(() => pairs[Math.floor(rng.next() * pairs.length)]!);
    stats.forEach((f, k) => draws[k]!.push(f(sample)));
  }
  return draws.map((xs) => {
    const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    return [s[Math.floor(0.025 * (s.length - 1))]!, s[Math.ceil(0.975 * (s.length - 1))]!];
  });
}

type Measure = keyof AtK;

/** A pair's mean over its runs of `measure` after AT_K[ki] probes, for `rule` (or "random"). */
const atMean = (p: CalibrationPair, split: "val" | "test", rule: string, measure: Measure, ki: number) =>
  meanOf(p.atK[split][rule]!.map((a) => a[measure][ki]!));

/**
 * `measure` after each of {@link AT_K} probes: random order's mean over the pairs, and the mean paired difference
 * (the rule's mean over its runs minus the mean of the pair's random orders) with its bootstrap interval over pairs.
 */
export function atKVersusRandom(
  pairs: readonly CalibrationPair[],
  rule: string,
  measure: Measure,
  split: "val" | "test" = "test",
) {
  return AT_K.map((k, ki) => {
    const diff = (ps: readonly CalibrationPair[]) =>
      meanOf(ps.map((p) => atMean(p, split, rule, measure, ki) - atMean(p, split, "random", measure, ki)));
    const [ci] = bootstrap(pairs, [diff]);
    return {
      k,
      random: meanOf(pairs.map((p) => atMean(p, split, "random", measure, ki))),
      meanDiff: diff(pairs),
      ci: ci!,
    };
  });
}

/** A rule's validation error excess: mean over AT_K of the mean paired error difference from random order. */
export function errorExcess(pairs: readonly CalibrationPair[], rule: string): number {
  return meanOf(
    AT_K.map((_, ki) =>
      meanOf(pairs.map((p) => atMean(p, "val", rule, "err", ki) - atMean(p, "val", "random", "err", ki))),
    ),
  );
}

/**
 * The rule with the smallest worst validation error excess ({@link errorExcess}) over `datasets`
 * ({@link chooseRuleBy}): the choice by the error-after-k measure, beside {@link chooseRule}'s by the first crossing.
 */
export function chooseRuleByError(r: CalibrationLodoResult, datasets: readonly string[]): string {
  return chooseRuleBy(r, datasets, (pairs, id) => errorExcess(pairs, id));
}

/** The command that reruns `r` (its seeds and orders; the defaults left out). */
function reproduce(r: CalibrationLodoResult): string {
  const flags = [
    r.seeds.join(",") === "1,2,3" ? "" : ` --seeds ${r.seeds.join(",")}`,
    r.orders === 5 ? "" : ` --orders ${r.orders}`,
    ...Object.entries(r.seedsFor ?? {}).map(([d, xs]) => ` --seeds-for ${d}=${xs.join(",")}`),
  ].join("");
  return `npm run bench:calibration-lodo${flags ? ` --${flags}` : ""}`;
}

const pct = (v: number) => (Number.isFinite(v) ? `${Math.round(100 * v)}%` : "inf");
const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

export function renderCalibrationLodo(r: CalibrationLodoResult): string {
  const ds = r.datasets;
  const of = (d: string) => r.pairs.filter((p) => p.dataset === d);
  const label = (id: string) => r.rules.find((x) => x.id === id)!.label;
  const overall = chooseRule(r, ds);
  const grid = mdTable(
    ["rule", ...ds.map((d) => `${d}: median (of random's)`), "worst ratio"],
    [
      ...r.rules.map(({ id }) => [
        id === overall
          ? `**${label(id)}** (chosen: best worst case)`
          : r.rules.find((x) => x.id === id)!.bounded
            ? `${label(id)} (candidate)`
            : label(id),
        ...ds.map((d) => `${num(median(of(d).flatMap((p) => p.val[id]!)))} (${pct(ratio(of(d), id, "val"))})`),
        pct(Math.max(...ds.map((d) => ratio(of(d), id, "val")))),
      ]),
      [`random order (${r.orders} per pair)`, ...ds.map((d) => num(median(of(d).flatMap((p) => p.randomVal)))), ""],
    ],
  );
  // the rule chosen on the other datasets, and the library's default beside it when the choice differs
  const shipped =
    DEFAULT_RANDOM_FIRST > 0 && DEFAULT_ADAPTIVE_PROBES === 1 && DEFAULT_HAND_OVER === "replace"
      ? `accuracy-after${DEFAULT_RANDOM_FIRST}`
      : `accuracy-${DEFAULT_HAND_OVER === "replace" ? "replace" : "head"}${String(DEFAULT_ADAPTIVE_PROBES)}`;
  const withDefault = (rule: string): [string, string][] =>
    rule === shipped || !r.rules.some((x) => x.id === shipped)
      ? [[rule, rule === shipped ? " (the default)" : ""]]
      : [
          [rule, ""],
          [shipped, " (the default, not chosen here)"],
        ];
  const lodo = mdTable(
    [
      "held-out dataset",
      "pairs",
      "rule chosen on the others (validation)",
      "test: median probes, rule / random",
      "ratio [95% CI]",
      "mean paired difference, probes [95% CI]",
    ],
    ds.flatMap((held) =>
      withDefault(
        chooseRule(
          r,
          ds.filter((d) => d !== held),
        ),
      ).map(([rule, what]) => {
        const v = versusRandom(of(held), rule);
        return [
          held,
          String(v.pairs),
          `${label(rule)}${what}`,
          `${num(v.rule)} / ${num(v.random)}`,
          `${pct(v.ratio)} [${pct(v.ratioCi[0])}, ${pct(v.ratioCi[1])}]`,
          `${v.meanDiff.toFixed(1)} [${v.meanDiffCi[0].toFixed(1)}, ${v.meanDiffCi[1].toFixed(1)}]`,
        ];
      }),
    ),
  );
  const pts = (v: number) => (100 * v).toFixed(1);
  const errGrid = mdTable(
    ["rule", ...ds.map((d) => `${d}: error excess, points`), "worst"],
    r.rules.map(({ id }) => [
      label(id),
      ...ds.map((d) => pts(errorExcess(of(d), id))),
      pts(Math.max(...ds.map((d) => errorExcess(of(d), id)))),
    ]),
  );
  const atKTable = (measure: "err" | "route") =>
    mdTable(
      [
        "held-out dataset",
        "pairs",
        "rule chosen on the others (validation error)",
        ...AT_K.map((k) => `after ${k}: random; rule - random [95% CI]`),
      ],
      ds.flatMap((held) =>
        withDefault(
          chooseRuleByError(
            r,
            ds.filter((d) => d !== held),
          ),
        ).map(([rule, what]) => [
          held,
          String(of(held).length),
          `${label(rule)}${what}`,
          ...atKVersusRandom(of(held), rule, measure).map(
            (x) =>
              `${pts(x.random)}; ${x.meanDiff >= 0 ? "+" : ""}${pts(x.meanDiff)} [${pts(x.ci[0])}, ${pts(x.ci[1])}]`,
          ),
        ]),
      ),
    );
  const byModel = mdTable(
    [
      "held-out dataset",
      "held-out model",
      "pairs",
      "first crossing: mean paired difference, probes",
      `error after ${AT_K.join(" / ")}: rule - random, points`,
    ],
    ds.flatMap((held) => {
      const rule = r.rules.some((x) => x.id === shipped)
        ? shipped
        : chooseRule(
            r,
            ds.filter((d) => d !== held),
          );
      return [...new Set(of(held).map((p) => p.model))].map((model) => {
        const ps = of(held).filter((p) => p.model === model);
        return [
          held,
          model,
          String(ps.length),
          versusRandom(ps, rule).meanDiff.toFixed(1),
          AT_K.map((_, ki) =>
            pts(meanOf(ps.map((p) => atMean(p, "test", rule, "err", ki) - atMean(p, "test", "random", "err", ki)))),
          ).join(" / "),
        ];
      });
    }),
  );
  const perPair = ds
    .map(
      (d) =>
        `${d}: ` +
        of(d)
          .map(
            (p) =>
              `${p.model} (seed ${p.seed}) ${r.rules.map(({ id }) => p.test[id]!.join(",")).join("/")} vs ${p.randomTest.join(",")}`,
          )
          .join("; "),
    )
    .join("\n\n");
  return [
    `Seeds ${r.seeds.join(", ")}${Object.entries(r.seedsFor ?? {})
      .map(([d, xs]) => ` (${d}: ${xs.join(", ")})`)
      .join(
        "",
      )}; ${r.orders} random orders per pair; ${r.encoder} encoder; item model per seed as in \`npm run bench:online\` (each dataset at its leave-out); ` +
      `probes until the predicted accuracy is first within 3 points of the true one (cap 300; 301 = never). ` +
      `Reproduce: \`${reproduce(r)}\` (this run: ${Math.round(r.seconds)} s; worlds and pairs cached in .cache/online-bench).`,
    "",
    "**Validation split** (the rule is chosen here, among the candidates: the rules that hand over to the random order after a bounded number of adaptive probes), median probes over the (held-out model, seed) pairs and as a share of random probing's median:",
    "",
    grid,
    "",
    "**Leave one dataset out**: the candidate with the best worst validation ratio on the other datasets, scored on the held-out dataset's TEST split against random probing (bootstrap over its pairs, 2,000 resamples; a paired difference below 0 means fewer probes than random):",
    "",
    lodo,
    "",
    `**Error after k probes** (the measure beside the first crossing: it counts how far off the calibrated model is after a fixed number of probes, not when it first strays within 3 points). Validation split, each candidate's error excess: its mean absolute error of the predicted accuracy after ${AT_K.join(", ")} probes minus random order's, in points, averaged over those k and over the pairs (below 0: closer than random):`,
    "",
    errGrid,
    "",
    "Leave one dataset out, chosen by the smallest worst error excess on the other datasets' validation splits, scored on the held-out dataset's TEST split: mean absolute error of the predicted accuracy after k probes, in points (random order's mean; the rule's minus random's, paired per (model, seed), bootstrap over the pairs; below 0: closer than random):",
    "",
    atKTable("err"),
    "",
    "The same rules, routing score after k probes on the TEST split, in points (each test item of the held-out model goes to it when its predictive p beats the best known model's, else to that model; the mean label of the models picked; above 0: better routing than after random probes):",
    "",
    atKTable("route"),
    "",
    "By held-out model, test split, the default rule (a model held out in every seed appears in as many pairs; its pairs share the split's items, so they are not independent draws):",
    "",
    byModel,
    "",
    `Per pair, test split (rules in the order of the table, a rule that draws on the random order once per order, then the random orders):\n\n${perPair}`,
  ].join("\n");
}
