/**
 * Which model to run next on a task, by expected value over what is left of the escalation: a model's value is its
 * chance to pass now plus, if it fails, the value of the best continuation (with the difficulty updated by that
 * failure), minus `costWeight` times its cost in units of the reference model's run cost. With one attempt left this is
 * the single-choice rule p - costWeight * cost. Only models on the (p, cost) frontier are considered at each step.
 */
import { predictive, updated } from "./grid.js";

/** A model the planner may choose. */
export interface PlanCandidate {
  readonly id: string;
  /** Run cost in units of the reference model's run cost. */
  readonly cost: number;
  /** p(success | difficulty) on the grid (see successCurve). */
  readonly curve: Float64Array;
}

export interface PlanState {
  /** Difficulty weights after the attempts so far. */
  readonly weights: Float64Array;
  /** Attempts still allowed, this one included (>= 1). */
  readonly attemptsLeft: number;
  /** Cost still allowed (same units; Infinity for none). */
  readonly budget: number;
  /** Models already tried on this task. */
  readonly tried: ReadonlySet<string>;
  readonly allowRetry: boolean;
  readonly costWeight: number;
}

export interface PlanChoice {
  readonly id: string;
  /** Predictive p of the chosen model now. */
  readonly p: number;
  /** Expected value of the plan that starts with it (successes minus weighted cost). */
  readonly value: number;
}

/** The models worth considering: affordable, allowed, and not beaten by a model at most as costly. */
function frontier(candidates: readonly PlanCandidate[], state: PlanState): { c: PlanCandidate; p: number }[] {
  const open = candidates
    .filter((c) => c.cost <= state.budget + 1e-12 && (state.allowRetry || !state.tried.has(c.id)))
    .map((c) => ({ c, p: predictive(state.weights, c.curve) }))
    .sort((x, y) => x.c.cost - y.c.cost || y.p - x.p);
  const out: { c: PlanCandidate; p: number }[] = [];
  let best = -1;
  for (const e of open) {
    if (e.p > best + 1e-9) {
      out.push(e);
      best = e.p;
    }
  }
  return out;
}

/** Value of the best continuation (0 when stopping is best or nothing is left). */
function continuation(candidates: readonly PlanCandidate[], state: PlanState): number {
  if (state.attemptsLeft <= 0) return 0;
  return Math.max(0, step(candidates, state)?.value ?? 0);
}

/**
 * Work the look-ahead may take, in candidate evaluations (plan steps times the candidates each weighs; about 0.1 s
 * here): the tree of plans grows as (models)^(attempts), so without a bound 30 models and 5 attempts took 7.5 s and
 * `allowRetry` with many attempts never ended (or overflowed the stack).
 */
export const PLAN_WORK = 2_000_000;
/** Most attempts the plan looks ahead, whatever the work (the recursion's depth). */
export const PLAN_DEPTH = 8;

/**
 * The best next model and its value, or undefined when no model is allowed. The plan looks ahead over the models of
 * the first two (p, cost) frontiers (the second: the frontier once the first is removed), which keeps it fast, and
 * over as many of the attempts left as {@link planHorizon} allows (every one, unless the tree of plans is large);
 * later attempts are planned when they come.
 */
export function best(candidates: readonly PlanCandidate[], state: PlanState): PlanChoice | undefined {
  if (state.attemptsLeft <= 1) return step(candidates, state);
  const first = frontier(candidates, state).map((e) => e.c);
  const firstIds = new Set(first.map((c) => c.id));
  const second = frontier(
    candidates.filter((c) => !firstIds.has(c.id)),
    state,
  ).map((e) => e.c);
  const planned = [...first, ...second];
  return step(planned, { ...state, attemptsLeft: planHorizon(planned.length, state.attemptsLeft, state.allowRetry) });
}

/**
 * Attempts the plan looks ahead over `width` candidates: all `attemptsLeft` when the whole tree of plans (each step
 * weighing at most `width` candidates; one fewer per step without `allowRetry`) takes at most {@link PLAN_WORK}
 * evaluations, else the most that do (at least 1), and never more than {@link PLAN_DEPTH}.
 */
export function planHorizon(width: number, attemptsLeft: number, allowRetry: boolean): number {
  let nodes = 0;
  let level = 1;
  for (let h = 1; h <= Math.min(attemptsLeft, PLAN_DEPTH); h++) {
    level *= allowRetry ? width : Math.max(0, width - (h - 1));
    nodes += level;
    if (level === 0) break; // no candidate left: the tree ends here whatever the attempts
    if (h > 1 && nodes * width > PLAN_WORK) return h - 1;
  }
  return Math.min(attemptsLeft, PLAN_DEPTH);
}

function step(candidates: readonly PlanCandidate[], state: PlanState): PlanChoice | undefined {
  let out: PlanChoice | undefined;
  for (const { c, p } of frontier(candidates, state)) {
    let value = p - state.costWeight * c.cost;
    if (state.attemptsLeft > 1 && p < 1 - 1e-6) {
      const after: PlanState = {
        ...state,
        weights: updated(state.weights, c.curve, 0),
        attemptsLeft: state.attemptsLeft - 1,
        budget: state.budget - c.cost,
        tried: new Set([...state.tried, c.id]),
      };
      value += (1 - p) * continuation(candidates, after);
    }
    if (!out || value > out.value) out = { id: c.id, p, value };
  }
  return out;
}
