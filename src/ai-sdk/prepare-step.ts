/**
 * Per-step routing of an AI SDK tool loop ({@link irtPrepareStep}, a `prepareStep` for `generateText`, `streamText`
 * and `ToolLoopAgent`), and feedback from a finished run ({@link irtFeedback}, {@link irtOnFinish}).
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { FeedbackEvent } from "../learning/events.js";
import type { FeedbackOptions } from "../core/feedback/outcome-events.js";
import type { AiMessage } from "./prompt-messages.js";
import type { CorePlan } from "../core/router-core.js";
import type { IrtRouterModel } from "./router-model.js";
import { callRunId } from "./call-run-ids.js";
import { parsePrepareStepOptions, type IrtPrepareStepOptions } from "./prepare-step-options.js";
import { routedRunOf, settledResult, type RoutedResult, type StreamedRoutedResult } from "./routed-result.js";

export type { IrtPrepareStepOptions } from "./prepare-step-options.js";

/**
 * What {@link irtPrepareStep} needs of the router: {@link IrtRouterModel} (ai 6), or the `LanguageModelV4` face
 * `IrtRouterModelV4` (ai 7), whose `planned` models are of the children's version.
 */
export interface RoutingModel<M> {
  plan: IrtRouterModel["plan"];
  planned(plan: CorePlan): M;
}

/** What `prepareStep` receives, as far as routing reads it. */
export interface PrepareStepInput {
  readonly stepNumber: number;
  readonly messages: readonly AiMessage[];
  /**
   * The call's finished steps: the AI SDK passes the same array (the call's own) at every step of a call, which
   * tells the call's steps from another call's when there is no `runId` option.
   */
  readonly steps: readonly unknown[];
}

/**
 * A `prepareStep` that routes each step of a tool loop: the step's messages hold the previous steps' replies (each
 * tagged with the model that wrote it, so the model that served the run keeps its prompt cache priced), their tool
 * calls and tool results (a tool error marks that step for feedback and, with the `escalation` option, passes its
 * model over for the next step). The step gets a model that serves it with the plan's order (falling back when a
 * child throws) and records its usage; the decision is in the step's `providerMetadata["irt-router"]`. Bad
 * `options` (a misspelt key such as `needs: { tool: true }`) throw a ValidationError naming the field.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs, tool } from "ai";
 * import { z } from "zod";
 * import { createIrtRouterModel, irtPrepareStep, irtFeedback } from "irt-router/ai-sdk";
 *
 * declare const strong: import("@ai-sdk/provider").LanguageModelV3;
 * declare const cheap: import("@ai-sdk/provider").LanguageModelV3;
 * const router = createIrtRouterModel({ models: { "gpt-4o": strong, "gpt-4o-mini": cheap }, escalation: true });
 * const result = await generateText({
 *   model: router,
 *   tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `21C in ${city}` }) },
 *   prompt: "Weather in Paris?",
 *   stopWhen: stepCountIs(5),
 *   prepareStep: irtPrepareStep(router, { needs: { tools: true } }),
 * });
 * await irtFeedback(router, result, true, { source: "grader" });
 * ```
 */
export function irtPrepareStep<M = LanguageModelV3>(
  router: RoutingModel<M>,
  options: IrtPrepareStepOptions = {},
): (input: PrepareStepInput) => Promise<{ model: M }> {
  const { runId, task, needs } = parsePrepareStepOptions(options);
  return async (step) => {
    const { messages } = step;
    const plan = await router.plan(messages, {
      runId: runId ?? callRunId(step.steps),
      ...(task !== undefined ? { task } : {}),
      ...(needs ? { needs } : {}),
    });
    return { model: router.planned(plan) };
  };
}

/**
 * Records the outcome of a finished call routed by `router`: by its run id when its steps had one (the outcome
 * spread over the run's steps as `options.attribution` says), else for each routed step's decision. `result` is a
 * `generateText` result, an `onFinish` event, or a `streamText` result, whose steps are awaited (the stream is read
 * to its end; a stream that failed rejects with its error). Returns the events written.
 */
export async function irtFeedback(
  router: Pick<IrtRouterModel, "feedback">,
  result: RoutedResult | StreamedRoutedResult,
  outcome: boolean | number,
  options: FeedbackOptions = {},
): Promise<FeedbackEvent[]> {
  const { runId, decisionIds } = routedRunOf(await settledResult(result));
  if (runId !== undefined) return router.feedback(runId, outcome, options);
  const events: FeedbackEvent[] = [];
  for (const id of decisionIds) events.push(...(await router.feedback(id, outcome, options)));
  return events;
}

/**
 * An `onFinish` callback that grades the finished call (`grade` returns true/false, a grade in [0, 1], or undefined
 * for no outcome) and records it with {@link irtFeedback}. A feedback error goes to `onError` (default: rethrown).
 */
export function irtOnFinish<E extends RoutedResult = RoutedResult & { readonly text: string }>(
  router: Pick<IrtRouterModel, "feedback">,
  grade: (event: E) => boolean | number | undefined | Promise<boolean | number | undefined>,
  options: FeedbackOptions & { readonly onError?: (error: unknown) => void } = {},
): (event: E) => Promise<void> {
  const { onError, ...feedback } = options;
  return async (event) => {
    try {
      const outcome = await grade(event);
      if (outcome !== undefined) await irtFeedback(router, event, outcome, feedback);
    } catch (error) {
      if (!onError) throw error;
      onError(error);
    }
  };
}
