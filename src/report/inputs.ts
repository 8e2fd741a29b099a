/**
 * Turns what the user gives `irt-router report` into {@link ReportData} pieces (pure: the caller reads the files):
 * an `eval --json` result, a `bench:agent --json` result, a decision log, and a store's feedback events.
 */
import { z } from "zod";
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { FeedbackEvent } from "../learning/events.js";
import { OnlineLearner, type KnownAbility } from "../learning/learner.js";
import type { ReportData } from "./types.js";

const evalSchema = z.object({
  dataset: z.string(),
  costReference: z.object({
    singleModels: z.array(z.object({ model: z.string(), accuracy: z.number(), meanCost: z.number() })),
  }),
  methods: z.array(
    z.object({
      name: z.string(),
      costAware: z
        .object({ curve: z.array(z.object({ meanCost: z.number(), accuracy: z.number() })).optional() })
        .nullish(),
    }),
  ),
});

/** The cost-accuracy input of an `irt-router eval --json` result: each method's cost curve and the single models. */
export function costsFromEval(raw: unknown, flag = "--eval"): NonNullable<ReportData["costs"]> {
  const r = parseWith(evalSchema, raw, flag);
  return {
    source: `irt-router eval on ${r.dataset}`,
    dataset: r.dataset,
    per: "query",
    singles: r.costReference.singleModels.map((s) => ({ name: s.model, cost: s.meanCost, accuracy: s.accuracy })),
    policies: r.methods
      .filter((m) => m.costAware?.curve && m.costAware.curve.length > 0)
      .map((m) => ({
        name: m.name,
        points: m.costAware!.curve!.map((c) => ({ name: m.name, cost: c.meanCost, accuracy: c.accuracy })),
      })),
  };
}

const agentSchema = z.object({
  dataset: z.string(),
  strongest: z.string(),
  rows: z.array(z.object({ name: z.string(), success: z.number(), costPerRun: z.number() })),
});

/**
 * The cost-accuracy input of a `npm run bench:agent -- --json` result: one point per row; rows named like a single
 * model ("always <model>", "single: <model>") are drawn as single models.
 */
export function costsFromAgent(raw: unknown, flag = "--agent"): NonNullable<ReportData["costs"]> {
  const r = parseWith(agentSchema, raw, flag);
  const single = /^(always|single)[ :-]+/i;
  const point = (row: (typeof r.rows)[number]) => ({ name: row.name, cost: row.costPerRun, accuracy: row.success });
  return {
    source: `agent runs on ${r.dataset}`,
    dataset: r.dataset,
    per: "run",
    singles: r.rows.filter((row) => single.test(row.name)).map(point),
    policies: r.rows.filter((row) => !single.test(row.name)).map((row) => ({ name: row.name, points: [point(row)] })),
  };
}

const usd = z.number().finite().nonnegative().optional();
const decisionSchema = z.object({
  model: z.string().min(1),
  category: z.string().min(1).optional(),
  p: z.number().min(0).max(1).optional(),
  ok: z.union([z.boolean(), z.number().min(0).max(1)]).optional(),
  // a router's decision log (its decisionSink): costs, fallback, shadow choice
  expectedCostUsd: usd,
  realizedCostUsd: usd,
  fallbackFrom: z.string().min(1).optional(),
  routed: z.string().min(1).optional(),
  routedExpectedCostUsd: usd,
});

/**
 * A decision log: JSON Lines with one decision a line (`{ "model", "category"?, "p"?, "ok"? }`, as a router's
 * `decisionSink` writes them, with `expectedCostUsd`, `realizedCostUsd`, `fallbackFrom`, `routed` and
 * `routedExpectedCostUsd` kept for the cost figure), or the built-in demo's `--json` document (its `steps`). Steps
 * with p and an outcome also feed the reliability diagram.
 */
export function parseDecisions(
  text: string,
  source: string,
  flag = "--decisions",
): { decisions: NonNullable<ReportData["decisions"]>; reliability?: NonNullable<ReportData["reliability"]>[number] } {
  const records = decisionRecords(text, flag);
  const rows = records.map((raw, i) => parseWith(decisionSchema, raw, `${flag} line ${i + 1}`));
  const labelled = rows.filter((r) => r.p !== undefined && r.ok !== undefined);
  return {
    decisions: {
      source,
      rows: rows.map(({ model, category, p: _p, ok: _ok, ...costs }) => ({
        model,
        category: category ?? "uncategorised",
        ...Object.fromEntries(Object.entries(costs).filter(([, v]) => v !== undefined)),
      })),
    },
    ...(labelled.length > 0
      ? { reliability: { dataset: source, p: labelled.map((r) => r.p!), y: labelled.map((r) => Number(r.ok)) } }
      : {}),
  };
}

/** The records of a decision log in either accepted form (demo steps are mapped to the line form). */
function decisionRecords(text: string, flag: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === "") throw new ValidationError(`${flag}: the file is empty; give a decision log.`, { path: flag });
  if (trimmed.startsWith("{") && trimmed.includes('"steps"')) {
    try {
      const doc = JSON.parse(trimmed) as { steps?: unknown };
      if (Array.isArray(doc.steps)) return doc.steps.map(demoStep);
    } catch {
      // not one JSON document: read it as JSON Lines below
    }
  }
  return trimmed.split(/\r?\n/).flatMap((line, i) => {
    if (line.trim() === "") return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch (e) {
      throw new ValidationError(
        `${flag} line ${i + 1} is not JSON (${(e as Error).message}); give one JSON object a line.`,
        {
          path: flag,
        },
      );
    }
  });
}

/** A built-in demo step (`{ chosen, subtask, candidates: [{ id, p }], ok }`) as a decision record. */
function demoStep(step: unknown): unknown {
  const s = step as { chosen?: unknown; subtask?: unknown; ok?: unknown; candidates?: { id: string; p: number }[] };
  const p = s.candidates?.find((c) => c.id === s.chosen)?.p;
  return {
    model: s.chosen,
    category: s.subtask,
    ...(p !== undefined ? { p } : {}),
    ...(s.ok !== undefined ? { ok: s.ok } : {}),
  };
}

/**
 * Replays a store's events through a fresh learner (from the snapshot when given) and records, every `every`
 * events, each answering model's ability along the workload's mean item direction (unit mean alpha) with its
 * posterior sd, and each model's share of the events in the window.
 */
export function learningFromEvents(
  loaded: { snapshot?: { state: unknown }; events: readonly FeedbackEvent[] },
  known: readonly KnownAbility[],
  source: string,
  checkpoints = 40,
): NonNullable<ReportData["learning"]> {
  const events = loaded.events;
  const learner = OnlineLearner.restore(
    { ...(loaded.snapshot ? { snapshot: loaded.snapshot } : {}), events: [] },
    known,
  );
  const dim = events[0]?.alpha.length ?? 0;
  const dir = new Float64Array(dim);
  for (const e of events) for (let j = 0; j < dim; j++) dir[j]! += e.alpha[j]! / events.length;
  const norm = Math.hypot(...dir) || 1;
  for (let j = 0; j < dim; j++) dir[j]! /= norm;
  const models = [...new Set(events.map((e) => e.model))];
  const every = Math.max(1, Math.ceil(events.length / checkpoints));
  const curves: { model: string; events: number; estimate: number; sd: number }[] = [];
  const share: { model: string; events: number; share: number }[] = [];
  const record = (n: number) => {
    for (const m of models) if (learner.has(m)) curves.push({ model: m, events: n, ...along(learner, m, dir) });
  };
  record(0);
  let window: string[] = [];
  events.forEach((e, i) => {
    if (!learner.has(e.model)) learner.addModel(e.model);
    learner.observe(e);
    window.push(e.model);
    if ((i + 1) % every === 0 || i === events.length - 1) {
      record(i + 1);
      for (const m of models)
        share.push({ model: m, events: i + 1, share: window.filter((w) => w === m).length / window.length });
      window = [];
    }
  });
  return { source, curves, share };
}

/** The posterior mean and sd of `dir . theta` for one model. */
function along(learner: OnlineLearner, model: string, dir: Float64Array): { estimate: number; sd: number } {
  const post = learner.posterior(model);
  const d = dir.length;
  let estimate = 0;
  for (let j = 0; j < d; j++) estimate += dir[j]! * post.mean[j]!;
  let variance = 0;
  const full = post.covariance.length === d * d;
  for (let a = 0; a < d; a++) {
    if (!full) variance += dir[a]! ** 2 * post.covariance[a]!;
    else for (let b = 0; b < d; b++) variance += dir[a]! * dir[b]! * post.covariance[a * d + b]!;
  }
  return { estimate, sd: Math.sqrt(Math.max(0, variance)) };
}
