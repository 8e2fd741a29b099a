import { IrtRouterError } from "../errors.js";
import type { ExclusionRecord } from "./decision.js";

/** No registered model can serve this call; `excluded` says why each one was left out. */
export class NoCandidatesError extends IrtRouterError {
  readonly excluded: readonly ExclusionRecord[];
  constructor(excluded: readonly ExclusionRecord[]) {
    const list = excluded.map((e) => `${e.id}: ${e.reason}`).join("; ");
    super(
      "NO_CANDIDATES",
      `No registered model can serve this call (${list}). ` +
        `Register a model that can, give a model a larger contextWindow, or shorten the input.`,
      { details: { excluded } },
    );
    this.excluded = excluded;
  }
}
