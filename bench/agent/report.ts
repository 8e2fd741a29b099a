/**
 * Output of `npm run bench:agent`: the JSON document (exact shape of issue 20) and the text tables.
 */
import type { RowFigures, Estimate } from "./stats.js";

export interface LearningFigures {
  readonly scenario: string;
  readonly checkpoints: readonly {
    readonly runs: number;
    readonly success: number;
    readonly costPerRun: number;
    readonly successCi95?: [number, number];
  }[];
}

export interface AgentReport {
  readonly dataset: string;
  /** Test runs per row (all seeds). */
  readonly runs: number;
  readonly seeds: readonly number[];
  readonly strongest: string;
  readonly rows: readonly RowFigures[];
  readonly learning: readonly LearningFigures[];
  /** The per-step router's success-vs-cost curves over lambda, cache-blind ("cost-aware") and cache-aware. */
  readonly curves?: readonly {
    readonly router: string;
    readonly lambda: number;
    readonly success: Estimate;
    readonly costPerRun: Estimate;
  }[];
}

/** The `--json` document: exactly the keys the issue names. */
export function reportJson(r: AgentReport): unknown {
  return {
    dataset: r.dataset,
    runs: r.runs,
    seeds: r.seeds.length,
    strongest: r.strongest,
    rows: r.rows.map((row) => ({
      name: row.name,
      success: row.success.value,
      successCi95: row.success.ci95,
      costPerRun: row.costPerRun.value,
      costRatio: row.costRatio.value,
      cachedShare: row.cachedShare.value,
      switchesPerRun: row.switchesPerRun.value,
    })),
    learning: r.learning.map((l) => ({
      scenario: l.scenario,
      checkpoints: l.checkpoints.map((c) => ({ runs: c.runs, success: c.success, costPerRun: c.costPerRun })),
    })),
    curves: (r.curves ?? []).map((c) => ({
      router: c.router,
      lambda: c.lambda,
      success: c.success.value,
      successCi95: c.success.ci95,
      costPerRun: c.costPerRun.value,
    })),
  };
}

const ci = (e: Estimate, f: (x: number) => string) => `${f(e.value)} [${f(e.ci95[0])}, ${f(e.ci95[1])}]`;
const p3 = (x: number) => x.toFixed(3);
const usd = (x: number) => x.toFixed(4);
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const f2 = (x: number) => x.toFixed(2);

/** The rows as a Markdown table (every figure with its 95% interval), and the frontier. */
export function rowsTable(rows: readonly RowFigures[], frontier: readonly string[]): string {
  const lines = [
    "| row | setting | run success | cost per run (USD) | cost vs strongest | cached share of input | switches per run | calls per run |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const mark = frontier.includes(r.name) ? " *" : "";
    lines.push(
      `| ${r.name}${mark} | ${r.setting || "-"} | ${ci(r.success, p3)} | ${ci(r.costPerRun, usd)} | ${ci(r.costRatio, pct)} | ${ci(r.cachedShare, pct)} | ${ci(r.switchesPerRun, f2)} | ${r.callsPerRun.toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}

/** The success-vs-cost frontier, cheapest first. */
export function frontierTable(rows: readonly RowFigures[], frontier: readonly string[]): string {
  const lines = ["| row on the frontier | cost per run (USD) | cost vs strongest | run success |", "|---|---|---|---|"];
  for (const name of frontier) {
    const r = rows.find((x) => x.name === name)!;
    lines.push(`| ${name} | ${usd(r.costPerRun.value)} | ${pct(r.costRatio.value)} | ${p3(r.success.value)} |`);
  }
  return lines.join("\n");
}

/** The learning curves: run success and cost per run at each checkpoint, per scenario. */
export function learningTable(learning: readonly LearningFigures[]): string {
  if (learning.length === 0) return "(no learning scenarios run)";
  const runs = learning[0]!.checkpoints.map((c) => c.runs);
  const lines = [
    `| scenario | ${runs.map((n) => `after ${n} runs`).join(" | ")} |`,
    `|---|${runs.map(() => "---|").join("")}`,
  ];
  for (const l of learning) {
    lines.push(
      `| ${l.scenario} | ${l.checkpoints.map((c) => `${p3(c.success)}${c.successCi95 ? ` [${p3(c.successCi95[0])}, ${p3(c.successCi95[1])}]` : ""}, $${usd(c.costPerRun)}`).join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
