/**
 * The online learner's state as data: checking an untrusted {@link LearnerState} field by field, and turning it into
 * the learner's parts and back.
 */
import { ValidationError } from "../errors.js";
import { AbilityPosterior } from "./posterior.js";
import type { PopulationPrior } from "./prior.js";
import type { TaskOffsets } from "./task-offsets.js";
import type { LearnerState, ModelEntry } from "./learner-types.js";

/**
 * Checks a {@link LearnerState} (from JSON, so untrusted) field by field; throws a ValidationError naming the
 * first bad field (`state.models.<id>.posterior.dataEta.3`).
 */
/** A value of an untrusted state, for a message: never throws (an object without a prototype has no toString). */
function show(v: unknown): string {
  if (typeof v !== "object" || v === null) return String(v);
  try {
    return JSON.stringify(v)?.slice(0, 40) ?? typeof v;
  } catch {
    return typeof v;
  }
}

export function checkLearnerState(state: unknown): LearnerState {
  const bad = (path: string, what: string): never => {
    throw new ValidationError(
      `Invalid learner state: ${path} ${what}. Restore from a state written by learner.exportState().`,
      { path },
    );
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const finiteArray = (v: unknown, n: number, path: string): number[] => {
    if (!Array.isArray(v)) return bad(path, `must be an array of ${n} finite numbers`);
    if (v.length !== n) return bad(path, `has ${v.length} numbers, expected ${n}`);
    v.forEach((x, i) => Number.isFinite(x) || bad(`${path}.${i}`, `is ${show(x)}, must be a finite number`));
    return v as number[];
  };
  const stringArray = (v: unknown, path: string): string[] => {
    if (!Array.isArray(v)) return bad(path, "must be an array of strings");
    v.forEach((x, i) => typeof x === "string" || bad(`${path}.${i}`, "must be a string"));
    return v as string[];
  };
  if (!isObject(state)) return bad("state", "must be an object (the output of learner.exportState())");
  if (state.version !== 1) return bad("state.version", `is ${show(state.version)}; this library reads version 1`);
  const dim = state.dim;
  if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 1)
    return bad("state.dim", `is ${show(dim)}, must be a positive integer`);
  const pop = state.population;
  if (!isObject(pop)) return bad("state.population", "must be an object");
  const mean = finiteArray(pop.mean, dim, "state.population.mean");
  const covariance = finiteArray(pop.covariance, dim * dim, "state.population.covariance");
  if (typeof pop.nModels !== "number" || !Number.isInteger(pop.nModels) || pop.nModels < 0) {
    return bad("state.population.nModels", `is ${show(pop.nModels)}, must be a non-negative integer`);
  }
  try {
    new AbilityPosterior({ mean, covariance });
  } catch (err) {
    return bad("state.population.covariance", `is not a usable covariance (${(err as Error).message})`);
  }
  if (!isObject(state.models)) return bad("state.models", "must be an object keyed by model id");
  for (const [id, m] of Object.entries(state.models)) {
    const at = `state.models.${id}`;
    if (id.trim().length === 0) return bad(at, "has an empty model id");
    if (!isObject(m)) return bad(at, "must be an object");
    const p = m.posterior;
    if (!isObject(p)) return bad(`${at}.posterior`, "must be an object");
    if (p.version !== 1) return bad(`${at}.posterior.version`, `is ${show(p.version)}, expected 1`);
    if (p.dim !== dim) return bad(`${at}.posterior.dim`, `is ${show(p.dim)}, but the state's dim is ${dim}`);
    if (p.mode !== "full" && p.mode !== "diagonal")
      return bad(`${at}.posterior.mode`, `is ${show(p.mode)}, expected "full" or "diagonal"`);
    const size = p.mode === "full" ? dim * dim : dim;
    finiteArray(p.priorMean, dim, `${at}.posterior.priorMean`);
    finiteArray(p.priorPrecision, size, `${at}.posterior.priorPrecision`);
    finiteArray(p.dataPrecision, size, `${at}.posterior.dataPrecision`);
    finiteArray(p.dataEta, dim, `${at}.posterior.dataEta`);
    if (typeof p.evidence !== "number" || !Number.isFinite(p.evidence) || p.evidence < 0) {
      return bad(`${at}.posterior.evidence`, `is ${show(p.evidence)}, must be a finite number >= 0`);
    }
    // 0 is accepted: it is the limit of a decay that underflowed (the next event resets the data part).
    if (typeof m.pendingDecay !== "number" || !(m.pendingDecay >= 0 && m.pendingDecay <= 1)) {
      return bad(`${at}.pendingDecay`, `is ${show(m.pendingDecay)}, must be a number in [0, 1]`);
    }
    if (m.clock !== null && !Number.isFinite(m.clock))
      return bad(`${at}.clock`, `is ${show(m.clock)}, must be null or a finite number`);
  }
  stringArray(state.removed, "state.removed");
  stringArray(state.seenIds, "state.seenIds");
  return state as unknown as LearnerState;
}

/** The parts of a learner restored from a checked state: its population prior and one entry per tracked model. */
export function restoredParts(restore: LearnerState): {
  population: PopulationPrior;
  entries: Map<string, ModelEntry>;
} {
  const population = {
    mean: Float64Array.from(restore.population.mean),
    covariance: Float64Array.from(restore.population.covariance),
    nModels: restore.population.nModels,
  };
  const entries = new Map<string, ModelEntry>();
  for (const [id, m] of Object.entries(restore.models)) {
    let posterior: AbilityPosterior;
    try {
      posterior = AbilityPosterior.fromState(m.posterior);
    } catch (err) {
      throw new ValidationError(
        `Invalid learner state: state.models.${id}.posterior cannot be restored (${(err as Error).message}).`,
        { path: `state.models.${id}.posterior`, cause: err },
      );
    }
    entries.set(id, { posterior, pendingDecay: m.pendingDecay, clock: m.clock });
  }
  return { population, entries };
}

/** A learner's parts as a serialisable {@link LearnerState} (what `OnlineLearner.exportState` returns). */
export function exportLearnerState(
  dim: number,
  population: PopulationPrior,
  entries: ReadonlyMap<string, ModelEntry>,
  removed: ReadonlySet<string>,
  seen: ReadonlySet<string>,
  tasks: TaskOffsets,
): LearnerState {
  // Object.fromEntries defines own properties, so a model named "__proto__" is kept (an assignment would set the prototype).
  const models: LearnerState["models"] = Object.fromEntries(
    [...entries].map(([id, e]) => [
      id,
      { posterior: e.posterior.toState(), pendingDecay: e.pendingDecay, clock: e.clock },
    ]),
  );
  return {
    version: 1,
    dim,
    population: {
      mean: Array.from(population.mean),
      covariance: Array.from(population.covariance),
      nModels: population.nModels,
    },
    models,
    removed: [...removed],
    seenIds: [...seen],
    ...(tasks.size > 0 ? { taskOffsets: tasks.exportState() } : {}),
  };
}
