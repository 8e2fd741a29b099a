/** The items a replay interval paired with a reference is taken over, where the reference has gaps. */
import { bootstrapPlan, type BootstrapPlan } from "../../stats/bootstrap.js";

/**
 * The items an interval paired with the reference is taken over: every item, with the same bootstrap plan as the
 * others, unless some reference is unobserved on some (`gaps`), then those left out and a plan of the rest.
 */
export function pairedItems(
  gaps: Uint8Array,
  plan: BootstrapPlan,
): { of(x: Float64Array): Float64Array; plan: BootstrapPlan } {
  const keep: number[] = [];
  gaps.forEach((g, i) => g || keep.push(i));
  if (keep.length === gaps.length) return { of: (x) => x, plan };
  return { of: (x) => Float64Array.from(keep, (i) => x[i]!), plan: bootstrapPlan(keep.length, 1000, 1) };
}
