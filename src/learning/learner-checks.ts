/**
 * Checks of the online learner's arguments that the type system cannot make (values from JavaScript or JSON).
 */
import { FeedbackError, IrtRouterError } from "../errors.js";
import { assertFeedbackEvent, type ItemBounds } from "./event-check.js";
import type { FeedbackEvent } from "./events.js";

/**
 * The arguments of `OnlineLearner.addModel`, checked: a FeedbackError naming `modelId`, `init`, `ability`,
 * `ability.<i>`, `like` or `like.<i>`. `tracks` says whether the learner tracks an id (a `like` model must be tracked).
 */
export function checkAddModelArgs(
  modelId: unknown,
  init: unknown,
  dim: number,
  tracks: (modelId: string) => boolean,
): void {
  const bad = (path: string, what: string): never => {
    throw new FeedbackError(`addModel(${JSON.stringify(modelId) ?? String(modelId)}): ${path} ${what}`, { path });
  };
  if (typeof modelId !== "string" || modelId.trim().length === 0)
    bad("modelId", "must be a non-empty string (the model's id)");
  if (typeof init !== "object" || init === null || Array.isArray(init))
    return bad("init", "must be an object such as { ability } or { like }");
  const { ability, like, placement } = init as { ability?: unknown; like?: unknown; placement?: unknown };
  if (ability !== undefined) {
    const a = ability as ArrayLike<unknown> | null;
    if (typeof a !== "object" || a === null || typeof a.length !== "number")
      bad("ability", `must be an array of ${dim} finite numbers`);
    if (a!.length !== dim) bad("ability", `has length ${a!.length}, expected ${dim}`);
    for (let i = 0; i < dim; i++)
      if (!Number.isFinite(a![i])) bad(`ability.${i}`, `is ${String(a![i])}, must be a finite number`);
  }
  if (placement !== undefined) {
    if (ability === undefined) bad("placement", "needs an ability to place");
    const pl = placement as { sd?: unknown; direction?: ArrayLike<unknown> } | null;
    if (typeof pl !== "object" || pl === null) bad("placement", "must be an object { sd, direction }");
    if (typeof pl!.sd !== "number" || !Number.isFinite(pl!.sd) || pl!.sd < 0)
      bad("placement.sd", `is ${String(pl!.sd)}, must be a finite number >= 0`);
    const v = pl!.direction;
    if (typeof v !== "object" || v === null || v.length !== dim)
      bad("placement.direction", `must be an array of ${dim} finite numbers`);
    for (let i = 0; i < dim; i++)
      if (!Number.isFinite(v![i])) bad(`placement.direction.${i}`, `is ${String(v![i])}, must be a finite number`);
  }
  if (like !== undefined) {
    if (!Array.isArray(like)) bad("like", `must be an array of tracked model ids, got ${typeof like}`);
    (like as unknown[]).forEach((id, i) => {
      if (typeof id !== "string" || !tracks(id))
        bad(`like.${i}`, `is ${JSON.stringify(id)}, not a model the learner tracks`);
    });
  }
}

/** The UNKNOWN_MODEL error for feedback or a lookup of a model the learner does not track (`known`: the ids it does). */
export function unknownModelError(modelId: string, known: readonly string[]): IrtRouterError {
  return new IrtRouterError(
    "UNKNOWN_MODEL",
    `Model "${modelId}" is not tracked by the learner. Known: ${known.slice(0, 8).join(", ")}${known.length > 8 ? ", ..." : ""}. ` +
      `Add it with learner.addModel("${modelId}") or create the learner with unknownModels: "add".`,
    { details: { model: modelId } },
  );
}

/** Throws the FeedbackError of a malformed or out-of-bound event, naming it by id (see `assertFeedbackEvent`). */
export function checkLearnerEvent(event: FeedbackEvent, dim: number, itemBounds: ItemBounds): void {
  const id = (event as { id?: unknown } | null)?.id;
  assertFeedbackEvent(
    event,
    { dim, itemBounds },
    { prefix: "event", label: `Feedback event ${JSON.stringify(typeof id === "string" ? id : null)}` },
  );
}
