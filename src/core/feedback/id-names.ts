/**
 * Where a face of the router puts the ids `feedback()` takes, for the messages that refuse an id: the core is shared
 * by every face (LangChain, the AI SDK, Mastra, OpenAI Agents, {@link RouterCore}), and each names them its own way.
 */

/** Where a caller finds the ids `feedback()` takes, as phrases that complete "Use ..., or ...". */
export interface FeedbackIdNames {
  /** Where a call's decision id is (LangChain: `response_metadata.irtRouter.decisionId`). */
  readonly decisionId: string;
  /** Where a run id comes from (LangChain: `metadata.irtRouterRunId`, or the middleware's). */
  readonly runId: string;
}

/** The names of no framework in particular: the core's own, for every face that gives none. */
export const NEUTRAL_FEEDBACK_ID_NAMES: FeedbackIdNames = {
  decisionId: "a decision's decisionId (decisions() lists the recent ones)",
  runId: "the run id the calls were routed with",
};
