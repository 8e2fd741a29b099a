/** The leave-one-dataset-out choice of the online defaults: its result type, the max-min rule and its markdown. */
import { mdTable } from "../perf/section.js";

/** Per dataset and setting: the validation scores `npm run bench:online-lodo` measured. */
export interface LodoResult {
  datasets: string[];
  seeds: number[];
  /** Labels of the exploration settings (index = setting). */
  exploration: string[];
  /**
   * Whether each exploration setting may be the default: only rules that keep every model's chance of being routed
   * above zero (Thompson), so a model whose estimate fell on wrong feedback can come back. UCB ranks by an optimistic
   * p and stops trying a model once that p falls below another's (test/langchain/feedback-limits.test.ts).
   */
  explorationAdmissible: boolean[];
  /** Labels of the calibration settings. */
  calibrationSettings: string[];
  routing: Record<
    string,
    {
      static: number;
      oracle: number;
      closed1000: number[];
      closed3000: number[];
      /** Mean of the shares closed at 1,000 and 3,000 events. */
      score: number[];
      /** Share of the gap closed at 3,000 by the baselines (one value each). */
      baselines3000: Record<string, number>;
    }
  >;
  calibration: Record<
    string,
    {
      inflate: number;
      pairs: number;
      medians: number[];
      randomMedian: number;
      ratio: number[];
      /** -ratio (higher is better, for the max-min rule). */
      score: number[];
      perPair: number[][];
      random: number[][];
    }
  >;
  seconds: number;
}

/** Index of the setting with the best worst case (max of min) over `datasets`. */
export function pickMaxMin(
  scores: Record<string, { score: number[] }>,
  datasets: readonly string[],
  allowed?: readonly boolean[],
): number {
  const n = scores[datasets[0]!]!.score.length;
  let best = -1;
  let bestV = -Infinity;
  for (let k = 0; k < n; k++) {
    if (allowed && !allowed[k]) continue;
    const v = Math.min(...datasets.map((d) => scores[d]!.score[k]!));
    if (v > bestV) {
      bestV = v;
      best = k;
    }
  }
  return best;
}

const share = (v: number) => `${(100 * v).toFixed(0)}%`;

/** Rows "held-out dataset | chosen on the others | its score there | the held-out dataset's own best". */
function lodoRows(
  scores: Record<string, { score: number[] }>,
  datasets: readonly string[],
  labels: readonly string[],
  fmt: (v: number) => string,
  allowed?: readonly boolean[],
): (string | number)[][] {
  return datasets.map((held) => {
    const others = datasets.filter((d) => d !== held);
    const pick = pickMaxMin(scores, others, allowed);
    const own = pickMaxMin(scores, [held], allowed);
    return [
      held,
      labels[pick]!,
      fmt(scores[held]!.score[pick]!),
      `${labels[own]!} (${fmt(scores[held]!.score[own]!)})`,
    ];
  });
}

export function renderLodo(r: LodoResult): string {
  const ds = r.datasets;
  const ex = pickMaxMin(r.routing, ds, r.explorationAdmissible);
  const routingTable = mdTable(
    ["setting", ...ds.map((d) => `${d}: closed at 1,000 / 3,000`), "worst score"],
    r.exploration.map((label, k) => [
      k === ex ? `**${label}** (default)` : r.explorationAdmissible[k] ? label : `${label} (no exploration floor)`,
      ...ds.map((d) => `${share(r.routing[d]!.closed1000[k]!)} / ${share(r.routing[d]!.closed3000[k]!)}`),
      share(Math.min(...ds.map((d) => r.routing[d]!.score[k]!))),
    ]),
  );
  const baseRow = (b: string, label: string) => [label, ...ds.map((d) => share(r.routing[d]!.baselines3000[b]!))];
  const cal = pickMaxMin(r.calibration, ds);
  const calTable = mdTable(
    ["rule", ...ds.map((d) => `${d}: median probes (of random's)`), "worst ratio"],
    [
      ...r.calibrationSettings.map((label, k) => [
        k === cal ? `**${label}** (best worst ratio)` : label,
        ...ds.map((d) => `${r.calibration[d]!.medians[k]} (${share(r.calibration[d]!.ratio[k]!)})`),
        share(Math.max(...ds.map((d) => r.calibration[d]!.ratio[k]!))),
      ]),
      ["random order (5 per pair)", ...ds.map((d) => `${r.calibration[d]!.randomMedian}`), ""],
    ],
  );
  return [
    `Validation split, seeds ${r.seeds.join(", ")}; each dataset at its benchmark leave-out (the sections above). Reproduce: \`npm run bench:online-lodo\` (about 10 minutes on 2 cores from cold caches; grid cells and worlds are cached in .cache/online-bench).`,
    "",
    "**Exploration** (share of the validation static-to-oracle gap closed after 1,000 / 3,000 events, of the means over seeds; score = their mean; " +
      ds
        .map(
          (d) =>
            `${d}: static ${(100 * r.routing[d]!.static).toFixed(1)}%, oracle ${(100 * r.routing[d]!.oracle).toFixed(1)}%`,
        )
        .join("; ") +
      "):",
    "",
    routingTable,
    "",
    "Baselines at 3,000 events (share closed):",
    "",
    mdTable(
      ["baseline", ...ds],
      [
        baseRow("sgdEpsilon", "SGD + epsilon"),
        baseRow("epsilonGreedy", "epsilon-greedy bandit"),
        baseRow("greedy", "greedy posterior, inflate 1"),
      ],
    ),
    "",
    "The default is chosen among the rules that keep an exploration floor (Thompson sampling): UCB ranks by an optimistic p and stops trying a model once that p falls below another's, so a model whose estimate fell on wrong feedback may never come back; its rows are shown for comparison. " +
      `Among all rules, ${r.exploration[pickMaxMin(r.routing, ds)]} has the best worst score (${share(Math.min(...ds.map((d) => r.routing[d]!.score[pickMaxMin(r.routing, ds)]!)))}).`,
    "",
    "Leave one dataset out: the setting with the best worst score on the other datasets (among those with a floor), scored on the held-out one:",
    "",
    mdTable(
      ["held-out dataset", "chosen on the others", "its score there", "the held-out dataset's own best"],
      lodoRows(r.routing, ds, r.exploration, share, r.explorationAdmissible),
    ),
    "",
    `**Calibration** at the chosen exploration setting's inflate (${r.calibration[ds[0]!]!.inflate}): median probes until the predicted validation accuracy is within 3 points of the true one (cap 300; 301 = never), over the (held-out model, seed) pairs (` +
      ds.map((d) => `${d}: ${r.calibration[d]!.pairs}`).join(", ") +
      "), and that median as a share of random probing's:",
    "",
    calTable,
    "",
    "Every rule here asks all its probes by its criterion. The library's default since 0.4.0 asks only the first by it and the rest in random order (`adaptiveProbes: 1`), chosen by `npm run bench:calibration-lodo` (the next section).",
    "",
    "Leave one dataset out (the rule with the best worst ratio on the other datasets, its ratio on the held-out one):",
    "",
    mdTable(
      ["held-out dataset", "chosen on the others", "its ratio there", "the held-out dataset's own best"],
      lodoRows(r.calibration, ds, r.calibrationSettings, (v) => share(-v)),
    ),
  ].join("\n");
}
