import { z } from "zod";
import { createMiddleware } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import type { RouteDecision } from "./decision.js";
import { callInOrder, isAbort, isAbortReason } from "./delegate.js";
import { engineOf } from "./router.js";
import { agentRunId, agentTask, aiMessageOf, responseWithDecision, routedRequest, routerOf, unloggedDecision } from "./agent-step.js";
import type { IrtRouterMiddlewareOptions } from "./agent-step.js";

export type { IrtRouterMiddlewareOptions };

const stateSchema = z.object({
  /** Id of the current agent run; pass it to `router.feedback(runId, outcome)`. */
  irtRouterRunId: z.string().optional(),
  /** Decision of every model call of the run, in order. */
  irtRouterRoutes: z.array(z.custom<RouteDecision>()).default([]),
});

/**
 * Agent middleware that picks the model for every step of a `createAgent` run with an {@link IrtRouter}.
 *
 * `wrapModelCall` scores the step and calls `handler({ ...request, model })` with the best candidate (the agent
 * binds its tools and response format on that model itself), falling back to the next candidate when the call
 * throws (never on an abort). Models without `bindTools()` are left out, since the agent calls it on every model.
 * The run's decisions are kept in state (`irtRouterRoutes`, with `irtRouterRunId`) for feedback after the run.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { IrtRouter, irtRouterMiddleware } from "irt-router";
 *
 * const router = new IrtRouter({ models: { "gpt-4-1106-preview": gpt4, "mistralai/mistral-7b-chat": mistral } });
 * const agent = createAgent({ model: gpt4, tools, middleware: [irtRouterMiddleware({ router })] });
 * const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris?" }] });
 * console.log(result.irtRouterRoutes.map((d) => d.chosen));
 * await router.feedback(result.irtRouterRunId, true); // credits every step of the run
 * ```
 *
 * @param options - `{ router }`, an existing router, or the options of a new one (as for `new IrtRouter(options)`).
 * @returns The middleware, with the router it uses as `.router`.
 */
export function irtRouterMiddleware(options: IrtRouterMiddlewareOptions) {
  const router = routerOf(options);
  const engine = engineOf(router);
  const middleware = createMiddleware({
    name: "IrtRouterMiddleware",
    stateSchema,
    beforeAgent: () => ({ irtRouterRunId: agentRunId(), irtRouterRoutes: [] }),
    wrapModelCall: async (request, handler) => {
      engine.noteToolErrors(request.messages);
      const system = request.systemMessage?.text ? [request.systemMessage as BaseMessage] : [];
      const plan = await engine.plan([...system, ...request.messages], {
        toolsBound: (request.tools?.length ?? 0) > 0,
        bindsTools: true,
        runId: request.state.irtRouterRunId,
        task: agentTask(),
      });
      const { out, slot } = await callInOrder(plan, async (slot, i) => handler(routedRequest(request, slot, plan.decision, i)), {
        cancelled: (error) => isAbort(error, request.runtime?.signal) || isAbortReason(error),
        fallbackOn: engine.fallbackOn,
      });
      engine.recordSpend(plan, slot.id, aiMessageOf(out)?.usage_metadata);
      return responseWithDecision(out, plan.decision);
    },
    afterModel: (state) => {
      const decision = unloggedDecision(state);
      return decision ? { irtRouterRoutes: [...(state.irtRouterRoutes ?? []), decision] } : undefined;
    },
  });
  return Object.assign(middleware, { router });
}
