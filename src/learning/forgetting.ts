/**
 * Forgetting of the online learner: how much a model's data part decays before an event, and the event's own
 * weight, planned without touching the model's entry (so a refused update changes nothing).
 */
import type { FeedbackEvent } from "./events.js";
import type { LearnerOptions, ModelEntry } from "./learner-types.js";

/**
 * The decay pending on `entry` after `event` (a product of per-event factors), the model's clock after it, and the
 * event's weight: a half-life in events decays by 2^(-1/h) per event; a half-life in time decays by the time since
 * the model's latest event, and a late event (older than that) is pre-decayed by its own age instead. A factor that
 * underflows to 0 (a gap of more than ~1075 half-lives) is the exact limit: the data part decays fully.
 */
export function planForgetting(
  entry: Pick<ModelEntry, "pendingDecay" | "clock">,
  event: Pick<FeedbackEvent, "at" | "weight">,
  forgetting: LearnerOptions["forgetting"],
): { weight: number; pending: number; clock: number | null } {
  let weight = event.weight ?? 1;
  let pending = entry.pendingDecay;
  let clock = entry.clock;
  if (forgetting && "halfLifeEvents" in forgetting) {
    pending *= Math.pow(2, -1 / forgetting.halfLifeEvents);
  } else if (forgetting && "halfLifeMs" in forgetting) {
    if (clock === null) clock = event.at;
    else if (event.at > clock) {
      pending *= Math.pow(2, -(event.at - clock) / forgetting.halfLifeMs);
      clock = event.at;
    } else weight *= Math.pow(2, -(clock - event.at) / forgetting.halfLifeMs);
  }
  return { weight, pending, clock };
}
