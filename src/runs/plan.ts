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
 * The best next model and its value, or undefined when no model is allowed. The plan looks ahead over the models of
 * the first two (p, cost) frontiers (the second: the frontier once the first is removed), which keeps it fast.
 */
export function best(candidates: readonly PlanCandidate[], state: PlanState): PlanChoice | undefined {
  if (state.attemptsLeft <= 1) return step(candidates, state);
  const first = frontier(candidates, state).map((e) => e.c);
  const firstIds = new Set(first.map((c) => c.id));
  const second = frontier(
    candidates.filter((c) => !firstIds.has(c.id)),
    state,
  ).map((e) => e.c);
  return step([...first, ...second], state);
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
