/**
 * Builds `src/scorer/model-catalog-data.ts`, the catalog of current models with a prior ability for each, from
 * `scripts/model-catalog/spec.ts`, the datasets under the data root and the two shipped scorers. Method:
 * docs/catalog.md.
 *
 *     npx tsx scripts/build-model-catalog.ts [--data-root ../shared/data] [--check]
 *
 * `--check` rebuilds in memory and fails if the committed file differs (nothing is written).
 *
 * Steps:
 * 1. Strength of an ability vector on a scorer: S(theta) = mean over reference prompts of the scorer's logit
 *    alpha . theta - beta (temperature folded in). Reference prompts: every k-th train-split item of the four
 *    pretraining datasets and terminal-bench (150 per dataset). S is linear in theta: S = abar . theta - bbar.
 * 2. The scorer's rows are trained per dataset (a model in two datasets has two rows), so each dataset's rows carry an
 *    offset; the offsets are read off the models that have rows in two datasets, and every row's S is put on the
 *    MMLU-Pro rows' scale.
 * 3. Published MMLU (openai/simple-evals scale) links to S through the anchors in spec.MMLU_ANCHORS: S = a + b m,
 *    m = logit(MMLU), least squares.
 * 4. terminal-bench-2-32models: a Rasch fit (logit p = theta_model - d_task, trials as weights) gives each of its 32
 *    models an ability; spec.TERMINAL_BENCH_LINKS puts it on the m scale (mean-sigma linking).
 * 5. Models with no data: m from the family and price-tier rule, fitted on every model with data.
 * 6. A model's ability vector on a scorer: meanTheta + (a + b m + offset - Sbar) * direction, where offset is the
 *    placement dataset's (spec.PLACEMENT_DATASET) and direction is the least-squares slope of the rows' theta on their
 *    S (so S of the result is exactly a + b m + offset).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join, resolve } from "node:path";
import { parseCsvRows } from "../src/data/csv.js";
import { splitOf } from "../src/data/split.js";
import { loadPretrained } from "../adapters/artifact/load.js";
import { loadDataset } from "../adapters/data/load-dataset.js";
import { StaticEncoder } from "../adapters/encoders/static.js";
import { UseLiteEncoder } from "../adapters/encoders/use-lite.js";
import type { QueryEncoder } from "../src/encoders/types.js";
import type { IrtMoeScorer } from "../src/scorer/scorer.js";
import type { ModelCatalogData, CatalogModelData, CatalogScaleData } from "../src/scorer/model-catalog.js";
import { parseModelCatalogData } from "../src/scorer/model-catalog.js";
import {
  MMLU_ANCHORS,
  MODELS,
  PLACEMENT_DATASET,
  SNAPSHOT_SPREAD,
  TERMINAL_BENCH_LINKS,
  type SpecModel,
} from "./model-catalog/spec.js";

const OUT = "src/scorer/model-catalog-data.ts";
const TB = "terminal-bench-2-32models";
const PRETRAINING = ["mmlu-pro-29models", "routerbench-subset-11models", "routerdc-7models", "routellm-2models"];
const PER_DATASET = 150;
const logit = (pct: number) => Math.log(pct / (100 - pct));
const round = (x: number, digits = 4) => Number(x.toFixed(digits));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sdOf = (xs: readonly number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
};

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Least squares y = a + b x; residual sd with n - 2 degrees of freedom. */
function ols(x: readonly number[], y: readonly number[]) {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
  }
  const b = sxy / sxx;
  const a = my - b * mx;
  const residuals = x.map((xi, i) => y[i]! - (a + b * xi));
  const sd = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0) / Math.max(1, x.length - 2));
  return { a, b, sd, residuals };
}

/** Reference prompts: every k-th train item, PER_DATASET per dataset. */
async function referencePrompts(dataRoot: string): Promise<string[]> {
  const texts: string[] = [];
  for (const name of [...PRETRAINING, TB]) {
    const ds = await loadDataset(PRETRAINING.includes(name) ? name : join(dataRoot, name), { dataRoot });
    const train = ds.items.filter((it) => splitOf(ds.name, it.id) === "train");
    const step = Math.max(1, Math.floor(train.length / PER_DATASET));
    for (let i = 0, n = 0; i < train.length && n < PER_DATASET; i += step, n++) texts.push(train[i]!.text);
  }
  return texts;
}

interface ScaleFit {
  readonly data: CatalogScaleData;
  readonly rowStrength: Map<string, number>;
}

/** Steps 1-3 and 6's parts for one scorer. */
async function fitScale(scorer: IrtMoeScorer, encoder: QueryEncoder, texts: readonly string[]): Promise<ScaleFit> {
  const d = scorer.abilityDim;
  const abar = new Float64Array(d);
  let bbar = 0;
  const vectors = await encoder.embed([...texts]);
  for (const v of vectors) {
    const item = await scorer.itemParams(v);
    for (let k = 0; k < d; k++) abar[k] += item.alpha[k]! / scorer.temperature / vectors.length;
    bbar += item.beta / scorer.temperature / vectors.length;
  }
  const strength = (theta: ArrayLike<number>) => {
    let s = -bbar;
    for (let k = 0; k < d; k++) s += abar[k]! * theta[k]!;
    return s;
  };
  const rows = scorer.models;
  const raw = rows.map((m) => strength(m.ability));
  const meanTheta = new Float64Array(d);
  for (const m of rows) for (let k = 0; k < d; k++) meanTheta[k] += m.ability[k]! / rows.length;
  const meanS = strength(meanTheta);
  const direction = new Float64Array(d);
  let sss = 0;
  rows.forEach((m, r) => {
    const ds = raw[r]! - meanS;
    sss += ds * ds;
    for (let k = 0; k < d; k++) direction[k] += (m.ability[k]! - meanTheta[k]!) * ds;
  });
  for (let k = 0; k < d; k++) direction[k] /= sss;

  // Step 2: dataset offsets from models with rows in two datasets (row id `<id>` on its primary dataset,
  // `<id>@<dataset>` on the others).
  const byId = new Map(rows.map((m, r) => [m.id, raw[r]!]));
  const primarySource = new Map(rows.map((m) => [m.id, m.sources[0]!]));
  const offsetsOf = new Map<string, number[]>();
  for (const m of rows) {
    const at = m.id.indexOf("@");
    if (at < 0) continue;
    const base = m.id.slice(0, at);
    const source = m.id.slice(at + 1);
    if (!byId.has(base)) continue;
    const baseSource = primarySource.get(base)!;
    const diff = byId.get(m.id)! - byId.get(base)!;
    offsetsOf.set(`${source}|${baseSource}`, [...(offsetsOf.get(`${source}|${baseSource}`) ?? []), diff]);
  }
  // Offsets relative to MMLU-Pro: direct ones first, then through one intermediate dataset.
  const offset = new Map<string, number>([["mmlu-pro-29models", 0]]);
  const linkSpread: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    for (const [key, diffs] of offsetsOf) {
      const [source, baseSource] = key.split("|") as [string, string];
      if (offset.has(baseSource) && !offset.has(source)) {
        offset.set(source, offset.get(baseSource)! + mean(diffs));
        if (diffs.length > 1) linkSpread.push(sdOf(diffs));
      }
    }
  }
  // A model with rows in several datasets: its linked S is the mean of its rows' linked S.
  const linked = new Map<string, number[]>();
  rows.forEach((m, r) => {
    const base = m.id.split("@")[0]!;
    const src = m.id.includes("@") ? m.id.slice(m.id.indexOf("@") + 1) : m.sources[0]!;
    const off = offset.get(src);
    if (off === undefined) return;
    linked.set(base, [...(linked.get(base) ?? []), raw[r]! - off]);
  });
  for (const vals of linked.values()) if (vals.length > 1) linkSpread.push(sdOf(vals));
  const rowStrength = new Map([...linked].map(([id, vals]) => [id, mean(vals)]));

  // Step 3: anchors.
  const anchorS = MMLU_ANCHORS.map((a) => {
    const s = rowStrength.get(a.row);
    if (s === undefined) throw new Error(`anchor row ${a.row} is not in the scorer's catalog`);
    return s;
  });
  const fit = ols(
    MMLU_ANCHORS.map((a) => logit(a.published.score)),
    anchorS,
  );
  if (!(fit.b > 0)) throw new Error(`anchor fit has a non-positive slope (${fit.b}): the link does not hold`);
  const anchorSd = Math.sqrt(fit.sd ** 2 + (linkSpread.length ? mean(linkSpread.map((s) => s * s)) : 0));
  return {
    rowStrength,
    data: {
      encoderId: scorer.encoder.id,
      nModels: rows.length,
      meanTheta: Array.from(meanTheta, (v) => round(v, 7)),
      direction: Array.from(direction, (v) => round(v, 7)),
      meanStrength: round(meanS, 6),
      intercept: round(fit.a, 6),
      slope: round(fit.b, 6),
      anchorSd: round(anchorSd, 4),
      datasetOffsets: Object.fromEntries([...offset].map(([k, v]) => [k, round(v)])),
      placementDataset: PLACEMENT_DATASET,
      placementOffset: round(offset.get(PLACEMENT_DATASET)!, 6),
      anchors: MMLU_ANCHORS.map((a, i) => ({
        row: a.row,
        mmlu: a.published.score,
        strength: round(anchorS[i]!),
        residual: round(fit.residuals[i]!),
      })),
    },
  };
}

/** Step 4: Rasch abilities of terminal-bench's models, with standard errors (logit scale, ridge N(0, 3^2)). */
function raschTerminalBench(dataRoot: string) {
  const dir = join(dataRoot, TB);
  const read = (f: string): Record<string, string>[] => {
    const [header, ...rows] = parseCsvRows(gunzipSync(readFileSync(join(dir, f))).toString("utf8"), f);
    return rows.map((r) => Object.fromEntries(header!.fields.map((h, k) => [h, r.fields[k] ?? ""])));
  };
  const labels = read("labels.csv.gz");
  const trials = new Map(
    read("trials.csv.gz").map((r) => [`${r.item_id}\u0000${r.model}`, [Number(r.successes), Number(r.trials)]]),
  );
  const models = [...new Set(labels.map((r) => r.model!))];
  const items = [...new Set(labels.map((r) => r.item_id!))];
  const obs = labels.map((r) => {
    const t = trials.get(`${r.item_id}\u0000${r.model}`);
    const n = t ? t[1]! : 1;
    return { m: models.indexOf(r.model!), i: items.indexOf(r.item_id!), y: Number(r.correct), n };
  });
  const theta = new Float64Array(models.length);
  const diff = new Float64Array(items.length);
  const prior = 1 / 9;
  const sig = (z: number) => 1 / (1 + Math.exp(-z));
  for (let it = 0; it < 500; it++) {
    const gT = new Float64Array(models.length).map((_, m) => -prior * theta[m]!);
    const hT = new Float64Array(models.length).fill(prior);
    for (const o of obs) {
      const p = sig(theta[o.m]! - diff[o.i]!);
      gT[o.m] += o.n * (o.y - p);
      hT[o.m] += o.n * p * (1 - p);
    }
    for (let m = 0; m < models.length; m++) theta[m] += gT[m]! / hT[m]!;
    const gD = new Float64Array(items.length).map((_, i) => -prior * diff[i]!);
    const hD = new Float64Array(items.length).fill(prior);
    for (const o of obs) {
      const p = sig(theta[o.m]! - diff[o.i]!);
      gD[o.i] -= o.n * (o.y - p);
      hD[o.i] += o.n * p * (1 - p);
    }
    for (let i = 0; i < items.length; i++) diff[i] += gD[i]! / hD[i]!;
  }
  const info = new Float64Array(models.length).fill(prior);
  for (const o of obs) {
    const p = sig(theta[o.m]! - diff[o.i]!);
    info[o.m] += o.n * p * (1 - p);
  }
  const rate = new Map<string, number[]>();
  for (const r of labels) rate.set(r.model!, [...(rate.get(r.model!) ?? []), Number(r.correct)]);
  return new Map(
    models.map((id, m) => [id, { theta: theta[m]!, se: 1 / Math.sqrt(info[m]!), successRate: mean(rate.get(id)!) }]),
  );
}

const blended = (p: SpecModel["price"]) => (3 * p.inputPer1M + p.outputPer1M) / 4;
/** Years since 2025-01 of a YYYY-MM month. */
const yearsOf = (month: string) => Number(month.slice(0, 4)) - 2025 + (Number(month.slice(5, 7)) - 1) / 12;
const latestRelease = MODELS.map((s) => s.released)
  .sort()
  .at(-1)!;

/** Least squares y = a + b x + c t (normal equations, 3 x 3). */
function ols2(x: readonly number[], t: readonly number[], y: readonly number[]) {
  const cols = [x.map(() => 1), [...x], [...t]];
  const A = cols.map((ci) => cols.map((cj) => ci.reduce((s, v, k) => s + v * cj[k]!, 0)));
  const r = cols.map((ci) => ci.reduce((s, v, k) => s + v * y[k]!, 0));
  // Gaussian elimination.
  for (let i = 0; i < 3; i++)
    for (let j = i + 1; j < 3; j++) {
      const f = A[j]![i]! / A[i]![i]!;
      for (let k = i; k < 3; k++) A[j]![k]! -= f * A[i]![k]!;
      r[j]! -= f * r[i]!;
    }
  const beta = [0, 0, 0];
  for (let i = 2; i >= 0; i--) {
    let v = r[i]!;
    for (let k = i + 1; k < 3; k++) v -= A[i]![k]! * beta[k]!;
    beta[i] = v / A[i]![i]!;
  }
  const [a, b, c] = beta as [number, number, number];
  return { a, b, c, residuals: y.map((yi, k) => yi - (a + b * x[k]! + c * t[k]!)) };
}

const SHRINK = 2;

/** The data as a TS literal: one top-level field per line, one array element (model, scale) per line. */
function formatData(data: ModelCatalogData): string {
  const lines = Object.entries(data).map(([key, value]) =>
    Array.isArray(value)
      ? `  ${key}: [\n${value.map((v) => `    ${JSON.stringify(v)},`).join("\n")}\n  ],`
      : `  ${key}: ${JSON.stringify(value)},`,
  );
  return `{\n${lines.join("\n")}\n}`;
}

/** The family and price-tier rule fitted on `models` (see main). */
function fitRule(models: readonly SpecModel[], mOf: (s: SpecModel) => number) {
  const x = models.map((s) => Math.log10(blended(s.price)));
  const t = models.map((s) => yearsOf(s.released));
  const tier = ols2(
    x,
    t,
    models.map((s) => mOf(s)),
  );
  const shrunkMeans = (keyOf: (s: SpecModel) => string, residual: (i: number) => number) => {
    const groups = new Map<string, number[]>();
    models.forEach((s, i) => groups.set(keyOf(s), [...(groups.get(keyOf(s)) ?? []), residual(i)]));
    return new Map([...groups].map(([k, rs]) => [k, rs.reduce((a, b) => a + b, 0) / (rs.length + SHRINK)]));
  };
  const providerOffset = shrunkMeans(
    (s) => s.provider,
    (i) => tier.residuals[i]!,
  );
  const familyOffset = shrunkMeans(
    (s) => s.family,
    (i) => tier.residuals[i]! - providerOffset.get(models[i]!.provider)!,
  );
  const offsetOf = (s: SpecModel) => (providerOffset.get(s.provider) ?? 0) + (familyOffset.get(s.family) ?? 0);
  const predict = (s: SpecModel) =>
    tier.a + tier.b * Math.log10(blended(s.price)) + tier.c * yearsOf(s.released) + offsetOf(s);
  return { tier, providerOffset, familyOffset, offsetOf, predict };
}

async function main(): Promise<void> {
  const dataRoot = resolve(arg("--data-root") ?? process.env.IRT_ROUTER_DATA ?? "../shared/data");
  const texts = await referencePrompts(dataRoot);
  const staticEncoder = await StaticEncoder.load();
  const useLite = await UseLiteEncoder.load();
  const fits = [
    await fitScale(await loadPretrained({ encoder: staticEncoder }), staticEncoder, texts),
    await fitScale(await loadPretrained({ encoder: useLite }), useLite, texts),
  ];

  // Published scores: m = logit(score); sd from the spread of one model name's snapshots.
  const publishedSd = sdOf(SNAPSHOT_SPREAD.map((p) => logit(p.score)));
  const mOf = new Map<string, { m: number; sd: number }>();
  for (const s of MODELS) {
    if (s.evidence.kind === "published") mOf.set(s.id, { m: logit(s.evidence.published.score), sd: publishedSd });
  }

  // Terminal-bench, linked by mean-sigma on the successor pairs.
  const rasch = raschTerminalBench(dataRoot);
  const linkT = TERMINAL_BENCH_LINKS.map((l) => rasch.get(l.column)!.theta);
  const linkM = TERMINAL_BENCH_LINKS.map((l) => {
    const p = mOf.get(l.predecessor);
    if (!p) throw new Error(`link predecessor ${l.predecessor} has no published score`);
    return p.m;
  });
  const B = sdOf(linkM) / sdOf(linkT);
  const A = mean(linkM) - B * mean(linkT);
  const linkResidual = Math.sqrt(mean(linkT.map((t, i) => (A + B * t - linkM[i]!) ** 2)));
  // The successor assumption could be off: its sd is taken as half the mean step between the predecessors' tiers.
  const sortedM = [...linkM].sort((p, q) => q - p);
  const tierStep = mean(sortedM.slice(1).map((v, i) => sortedM[i]! - v));
  const linkSd = Math.hypot(linkResidual, publishedSd, tierStep / 2);
  for (const s of MODELS) {
    if (s.evidence.kind !== "terminal-bench") continue;
    const r = rasch.get(s.evidence.column);
    if (!r) throw new Error(`${s.evidence.column} is not a terminal-bench column`);
    mOf.set(s.id, { m: A + B * r.theta, sd: Math.hypot(B * r.se, linkSd) });
  }

  // Family and price-tier rule: m = alpha + beta log10(blended price) + gamma years + provider offset + family
  // offset, each offset the mean residual of its models shrunk toward 0 (as if SHRINK more models had residual 0).
  // Its sd is the leave-one-out RMS error over the models with data.
  const withData = MODELS.filter((s) => mOf.has(s.id));
  const rule = fitRule(withData, (s) => mOf.get(s.id)!.m);
  const looErrors = withData.map((s, i) => {
    const rest = withData.filter((_, j) => j !== i);
    return mOf.get(s.id)!.m - fitRule(rest, (r) => mOf.get(r.id)!.m).predict(s);
  });
  const ruleSd = Math.sqrt(mean(looErrors.map((e) => e * e)));
  const tier = rule.tier;
  const providerOffset = rule.providerOffset;
  const familyOffset = rule.familyOffset;
  const offsetOf = rule.offsetOf;

  const models: CatalogModelData[] = MODELS.map((s) => {
    const base = {
      id: s.id,
      provider: s.provider,
      family: s.family,
      aliases: [...(s.aliases ?? [])],
      price: { ...s.price },
      ...(s.retired ? { retired: true } : {}),
    };
    const ev = s.evidence;
    let m: number;
    let sd: number;
    let source: string;
    let method: "published" | "terminal-bench" | "family-tier";
    if (ev.kind === "published") {
      ({ m, sd } = mOf.get(s.id)!);
      method = "published";
      source = `${ev.published.benchmark} ${ev.published.score}% (${ev.published.source})`;
    } else if (ev.kind === "terminal-bench") {
      ({ m, sd } = mOf.get(s.id)!);
      const r = rasch.get(ev.column)!;
      method = "terminal-bench";
      source =
        `${TB} column "${ev.column}" (success rate ${r.successRate.toFixed(3)}, Rasch ability ${r.theta.toFixed(2)} ` +
        `+- ${r.se.toFixed(2)}), linked to the MMLU scale by the GPT-5 successor-tier assumption`;
    } else {
      const off = offsetOf(s);
      m = tier.a + tier.b * Math.log10(blended(s.price)) + tier.c * yearsOf(s.released) + off;
      sd = ruleSd;
      method = "family-tier";
      source =
        `no data: family and price-tier rule (blended price $${blended(s.price).toFixed(3)}/1M, released ${s.released}, provider ` +
        `"${s.provider}" and family "${s.family}" offset ${off.toFixed(2)})`;
    }
    const pct = 100 / (1 + Math.exp(-m));
    return {
      ...base,
      prior: { method, mmluEquivalent: round(pct, 2), logitSd: round(sd, 3), source },
    };
  });

  const data: ModelCatalogData = {
    formatVersion: 1,
    generatedBy: "scripts/build-model-catalog.ts",
    blendedPrice: "(3 x input + output) / 4, USD per 1M tokens",
    rule: {
      intercept: round(tier.a),
      slopePerLog10Price: round(tier.b),
      slopePerYear: round(tier.c),
      unknownReleased: latestRelease,
      unknownYears: round(yearsOf(latestRelease)),
      providerOffsets: Object.fromEntries([...providerOffset].map(([k, v]) => [k, round(v)])),
      familyOffsets: Object.fromEntries([...familyOffset].map(([k, v]) => [k, round(v)])),
      logitSd: round(ruleSd, 3),
      fittedOn: withData.length,
      sdMethod: "leave-one-out RMS error over the models with data",
    },
    terminalBenchLink: {
      intercept: round(A),
      slope: round(B),
      residual: round(linkResidual),
      assumptionSd: round(tierStep / 2),
      pairs: TERMINAL_BENCH_LINKS.map((l) => ({ ...l })),
    },
    publishedLogitSd: round(publishedSd, 3),
    scales: fits.map((f) => f.data),
    models,
  };
  parseModelCatalogData(data);
  const text =
    `/**\n * Generated by scripts/build-model-catalog.ts from scripts/model-catalog/spec.ts, the datasets under the data\n` +
    ` * root and the shipped scorers; do not edit by hand (one entry per line; .prettierignore leaves it so). Method\n` +
    ` * and sources: docs/catalog.md.\n */\n` +
    `import type { ModelCatalogData } from "./model-catalog-schema.js";\n\n` +
    `export const MODEL_CATALOG_DATA: ModelCatalogData = ${formatData(data)};\n`;
  if (process.argv.includes("--check")) {
    if (readFileSync(OUT, "utf8") !== text)
      throw new Error(`${OUT} is out of date: run npx tsx scripts/build-model-catalog.ts`);
    console.log(`${OUT} is up to date`);
    return;
  }
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${models.length} models`);
  for (const f of fits) {
    console.log(
      `scale ${f.data.encoderId}: S = ${f.data.intercept.toFixed(3)} + ${f.data.slope.toFixed(3)} m, anchor sd ${f.data.anchorSd}, offsets ${JSON.stringify(f.data.datasetOffsets)}`,
    );
    for (const a of f.data.anchors)
      console.log(`  anchor ${a.row}: MMLU ${a.mmlu} S ${a.strength} residual ${a.residual}`);
  }
  console.log(
    `terminal-bench link: m = ${A.toFixed(3)} + ${B.toFixed(3)} theta_TB, residual ${linkResidual.toFixed(3)}`,
  );
  console.log(
    `rule: m = ${tier.a.toFixed(3)} + ${tier.b.toFixed(3)} log10(price) + ${tier.c.toFixed(3)} years, sd ${ruleSd.toFixed(3)}, n ${withData.length}`,
  );
  for (const m of models)
    console.log(`  ${m.id.padEnd(24)} ${m.prior.method.padEnd(15)} ${m.prior.mmluEquivalent} +- ${m.prior.logitSd}`);
}

await main();
