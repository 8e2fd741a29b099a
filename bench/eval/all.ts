/**
 * `npm run eval:all`: runs `irt-router eval` on the four datasets (3 seeds each) in this one
 * process and regenerates docs/results.md (plus the JSON of each run in bench/results/).
 *
 * Options: `npm run eval:all -- [--datasets a,b] [--seeds N] [--data-root D] [--report-only]`
 * (`--report-only` rebuilds docs/results.md from the saved runs in bench/results/ without running).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { IRT_MOE, type EvalReport, type MethodReport } from "../../src/eval/evaluate.js";
import { formatEvalJson, formatEvalMarkdown } from "../../src/eval/format.js";
import { runEvaluation } from "../../adapters/eval/run.js";
import { listFlag, MAX_EVAL_SEEDS, positiveIntFlag, scriptFlags } from "../flags.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(here, "..");
const ALL = ["mmlu-pro-29models", "routerdc-7models", "routerbench-subset-11models", "routellm-2models"];

/** The issue's acceptance figures (issue #8, "Done when"). */
const TARGETS: Record<string, { kind: "win"; reference: number } | { kind: "near"; points: number }> = {
  "mmlu-pro-29models": { kind: "win", reference: 0.7202 },
  "routerdc-7models": { kind: "win", reference: 0.5957 },
  "routerbench-subset-11models": { kind: "near", points: 0.005 },
  "routellm-2models": { kind: "near", points: 0.005 },
};

const args = scriptFlags(
  "eval:all",
  {
    datasets: { type: "string" },
    seeds: { type: "string" },
    "data-root": { type: "string" },
    "report-only": { type: "boolean" },
  },
  z
    .object({
      datasets: listFlag(z.enum(ALL as [string, ...string[]])).optional(),
      seeds: positiveIntFlag("seeds of the learned methods, default 3", { max: MAX_EVAL_SEEDS }).optional(),
      "data-root": z.string().min(1).optional(),
      "report-only": z.boolean().optional(),
    })
    .strict(),
);
const datasets = args["report-only"] ? [] : (args.datasets ?? ALL);
const seeds = args.seeds ?? 3;

const pct = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(4);
function commit(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "adapters", "bench"], {
      cwd: root,
      encoding: "utf8",
    }).trim();
    return dirty ? `${sha} (with uncommitted changes in src/adapters/bench)` : sha;
  } catch {
    return "unknown";
  }
}

interface Done {
  report: EvalReport;
  seconds: number;
  command: string;
  generatedAt: string;
  commit: string;
  /** False when this run embedded the texts itself (its wall time includes that); absent in older runs. */
  embeddingsFromCache?: boolean;
}
const resultsDir = join(here, "results");
const jsonPath = (name: string) => join(resultsDir, `eval-${name}.json`);
const started = performance.now();
/** The code being run: HEAD when this process started. */
const startCommit = commit();
/** Datasets this process has finished. */
const completed: string[] = [];
/** Datasets whose embeddings this process computed (not from the cache). */
const embeddedHere: string[] = [];
mkdirSync(resultsDir, { recursive: true });
function checks(report: EvalReport): string[] {
  const irt = report.methods.find((m) => m.name === IRT_MOE);
  if (!irt) return ["no irt-moe row"];
  const others = report.methods.filter((m) => m.name !== "oracle" && m.name !== IRT_MOE);
  const top = others.reduce((a, b) => (b.routingAccuracy > a.routingAccuracy ? b : a));
  const out: string[] = [];
  const target = TARGETS[report.dataset];
  if (target?.kind === "win") {
    const highest = irt.routingAccuracy > top.routingAccuracy;
    out.push(
      highest
        ? `highest mean routing accuracy: MET (${pct(irt.routingAccuracy)} vs next ${top.name} ${pct(top.routingAccuracy)}, diff CI of ${top.name} - irt-moe ${ci(top)})`
        : `highest mean routing accuracy: NOT MET (${top.name} ${pct(top.routingAccuracy)} > irt-moe ${pct(irt.routingAccuracy)}, diff CI ${ci(top)})`,
    );
    out.push(
      `reference figure ${target.reference}: ${irt.routingAccuracy >= target.reference ? "MET" : "NOT MET"} (${pct(irt.routingAccuracy)})`,
    );
  } else if (target?.kind === "near") {
    const gap = Math.max(0, top.routingAccuracy - irt.routingAccuracy);
    out.push(
      `within 0.5 point of the best method: ${gap <= target.points ? "MET" : "NOT MET"} (best other ${top.name} ${pct(top.routingAccuracy)}, irt-moe ${pct(irt.routingAccuracy)})`,
    );
  }
  const withAuc = report.methods.filter((m) => m.auc !== null && Number.isFinite(m.auc) && m.name !== IRT_MOE);
  const bestAuc = Math.max(...withAuc.map((m) => m.auc!));
  out.push(
    `AUC best or within 0.005 of the best: ${irt.auc! >= bestAuc - 0.005 ? "MET" : "NOT MET"} (irt-moe ${pct(irt.auc)}, best other ${pct(bestAuc)})`,
  );
  out.push(`ECE <= 0.03: ${irt.ece! <= 0.03 ? "MET" : "NOT MET"} (${pct(irt.ece)})`);
  return out;
}
const ci = (m: MethodReport) =>
  m.diffVsIrtMoeCi95 ? `[${pct(m.diffVsIrtMoeCi95[0])}, ${pct(m.diffVsIrtMoeCi95[1])}]` : "–";

function writeResults(): void {
  const total = (performance.now() - started) / 1000;
  // docs/results.md shows every dataset that has a saved run (this one's, or an earlier one's).
  const done: Done[] = ALL.filter((name) => existsSync(jsonPath(name))).map((name) => {
    const { run, ...report } = JSON.parse(readFileSync(jsonPath(name), "utf8")) as EvalReport & {
      run: Omit<Done, "report">;
    };
    return { report: report as EvalReport, ...run };
  });

  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "unknown cpu"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const lines: string[] = [
    "# Results",
    "",
    `Generated by \`npm run eval:all\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC (code at commit ${startCommit}), on ${machine}. ` +
      `Protocol: ../shared/BENCHMARK.md (test split of the sha256 rule; see docs/evaluation.md for every definition). ` +
      `Paired bootstrap with 1,000 resamples; each dataset's seeds are printed in its section. ` +
      `This process ran ${completed.join(", ") || "nothing (report only)"}${completed.length < datasets.length ? ` (${datasets.length - completed.length} more pending)` : ""} in ${Math.floor(total / 60)} min ${Math.round(total % 60)} s (${embeddedHere.length === 0 ? "embeddings from the cache" : `embeddings from the cache except ${embeddedHere.join(", ")}, embedded in this run`}). ` +
      `Datasets not run this time keep their previous figures, with the date and commit they were made on.`,
    "",
    "Each dataset's figures come from the command shown with it; `npm run eval:all` runs all of them in one process.",
    "",
    "## Summary",
    "",
    "| dataset | irt-moe routing | 95% CI | best other method | its routing | diff (other - irt-moe) 95% CI | best single | oracle | irt-moe AUC | irt-moe ECE | wall time |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { report, seconds } of done) {
    const irt = report.methods.find((m) => m.name === IRT_MOE);
    const others = report.methods.filter((m) => m.name !== "oracle" && m.name !== IRT_MOE);
    const top = others.reduce((a, b) => (b.routingAccuracy > a.routingAccuracy ? b : a));
    const get = (n: string) => report.methods.find((m) => m.name === n)!;
    lines.push(
      `| ${report.dataset} | ${pct(irt?.routingAccuracy)} ± ${pct(irt?.routingAccuracySd)} | ${irt ? `[${pct(irt.routingCi95[0])}, ${pct(irt.routingCi95[1])}]` : "–"} | ${top.name} | ${pct(top.routingAccuracy)} | ${ci(top)} | ${pct(get("best-single").routingAccuracy)} | ${pct(get("oracle").routingAccuracy)} | ${pct(irt?.auc)} | ${pct(irt?.ece)} | ${Math.round(seconds)} s |`,
    );
  }
  lines.push("", "## Against the issue's acceptance figures", "");
  for (const { report } of done) {
    lines.push(`**${report.dataset}**`, "", ...checks(report).map((c) => `- ${c}`), "");
  }
  lines.push(
    "A difference is called a win only when its paired 95% CI excludes 0; every other difference is reported as not significant.",
    "",
  );
  for (const { report, command, generatedAt, commit: sha, seconds, embeddingsFromCache } of done) {
    const embedded = embeddingsFromCache === false ? ", including embedding every text" : "";
    lines.push(
      formatEvalMarkdown(report, {
        headingLevel: 2,
        command,
        note: `run ${generatedAt.slice(0, 16).replace("T", " ")} UTC, commit ${sha}, ${Math.round(seconds)} s wall${embedded}`,
      }),
      "",
    );
  }
  writeFileSync(join(root, "docs", "results.md"), `${lines.join("\n").trim()}\n`);
}

for (const name of datasets) {
  const t0 = performance.now();
  process.stderr.write(`eval:all: ${name}\n`);
  const { report, embeddings } = await runEvaluation({
    dataset: name,
    seeds,
    ...(args["data-root"] && { dataRoot: args["data-root"] }),
  });
  const seconds = (performance.now() - t0) / 1000;
  if (embeddings.fromCache === false) embeddedHere.push(name);
  const run = {
    seconds,
    command: `npx irt-router eval --dataset ${name} --seeds ${seeds}`,
    generatedAt: new Date().toISOString(),
    commit: startCommit,
    embeddingsFromCache: embeddings.fromCache !== false,
  };
  writeFileSync(jsonPath(name), `${formatEvalJson({ ...report, run } as EvalReport)}\n`);
  process.stderr.write(`eval:all: ${name} done in ${seconds.toFixed(0)} s\n`);
  completed.push(name);
  writeResults();
}
writeResults();
process.stderr.write(`eval:all: wrote docs/results.md (${((performance.now() - started) / 60000).toFixed(1)} min)\n`);
