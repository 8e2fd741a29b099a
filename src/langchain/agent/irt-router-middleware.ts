import { z } from "zod";
import type { BaseMessage } from "@langchain/core/messages";
import type { RouteDecision } from "../../core/contracts/route-decision.js";
import { isAbort, isAbortReason } from "../calls/delegate.js";
import { callInOrder } from "../../core/call-order.js";
import { engineOf } from "../model/router.js";
import {
  AnswerWitness,
  agentRunId,
  agentTask,
  aiMessageOf,
  checkStepReply,
  stepBound,
  noteDeadline,
  markSubstituted,
  middlewareRouting,
  responseWithDecision,
  routedRequest,
  routerOf,
  unloggedDecision,
} from "./agent-step.js";
import { AttemptBound, usableUsage } from "../calls/attempt.js";
import type { IrtRouterMiddlewareOptions } from "./agent-step.js";
import { assertLangchainInstalled, createMiddleware } from "./langchain-package.js";
import type { ChatSlot } from "../bridge/chat-engine.js";
import { toRouteMessages } from "../bridge/route-messages.js";
import { tokenUsage } from "../bridge/chat-engine.js";
import { pinnedRuns } from "./run-pinning.js";
import type { RunDecision } from "../../runs/run-decision.js";
import type { RunTask } from "../../runs/options.js";

export type { IrtRouterMiddlewareOptions };
export type { MiddlewareRoutingOptions } from "./agent-step.js";

/** The model a step's request carried when all the router's candidates failed, by the step's message list. */
const HANDED = new WeakMap<object, unknown>();

// Built by the first irtRouterMiddleware() call, not at import (an app that only routes never builds it).
let stateSchema: ReturnType<typeof buildStateSchema> | undefined;

const buildStateSchema = () =>
  z.object({
    /** Id of the current agent run; pass it to `router.feedback(runId, outcome)`. */
    irtRouterRunId: z.string().optional(),
    /** Decision of every model call of the run, in order. */
    irtRouterRoutes: z.array(z.custom<RouteDecision>()).default([]),
    /** With `routing: "run"`: the run's decision (p per model, run cost, policy, reason). */
    irtRouterRun: z.custom<RunDecision>().optional(),
    /** With `routing: "run"`: the task the run was routed on; `router.runs.feedback(irtRouterRunTask, model, passed)`. */
    irtRouterRunTask: z.custom<RunTask>().optional(),
    /** With `routing: "run"`: the model that answered each model call (the pinned one unless it threw). */
    irtRouterRunModels: z.array(z.string()).default([]),
  });

/**
 * Agent middleware that picks the model for every step of a `createAgent` run with an {@link IrtRouter}.
 *
 * `wrapModelCall` scores the step and calls `handler({ ...request, model })` with the best candidate (the agent
 * binds its tools and response format on that model itself), falling back to the next candidate when the call
 * throws (never on an abort). Models without `bindTools()` are left out, since the agent calls it on every model.
 * The run's decisions are kept in state (`irtRouterRoutes`, with `irtRouterRunId`) for feedback after the run.
 *
 * With `routing: "run"` the model is chosen once per run instead, from the task (the run's last human message, with
 * `metadata.irtRouterTask` as its hint) by the router's run-level router (`router.routeRun`), and pinned for every
 * model call of the run, which keeps the provider's prompt cache warm; a call that throws falls back to the next model
 * by p. State then has `irtRouterRun` (the decision: p per model, run cost, policy, reason), `irtRouterRunTask` and
 * `irtRouterRunModels` (the model of each call); feed the run's outcome back with
 * `router.runs.feedback(result.irtRouterRunTask, result.irtRouterRun.chosen, passed)`.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { IrtRouter, irtRouterMiddleware } from "irt-router/langchain";
 *
 * const router = new IrtRouter({ models: { "gpt-4-1106-preview": gpt4, "mistralai/mistral-7b-chat": mistral } });
 * const agent = createAgent({ model: gpt4, tools, middleware: [irtRouterMiddleware({ router })] });
 * const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris?" }] });
 * console.log(result.irtRouterRoutes.map((d) => d.chosen));
 * await router.feedback(result.irtRouterRunId!, true); // credits every step of the run
 *
 * // One model per run, chosen from the task text and pinned (prices needed: the run's cost is from them)
 * const pinned = irtRouterMiddleware({ router, routing: "run", runCostWeight: 0.1 });
 * const run = await createAgent({ model: gpt4, tools, middleware: [pinned] }).invoke({
 *   messages: [{ role: "user", content: "Make the failing test pass." }],
 * });
 * console.log(run.irtRouterRun?.chosen, run.irtRouterRun?.reason);
 * router.runs.feedback(run.irtRouterRunTask!, run.irtRouterRun!.chosen, true);
 * ```
 *
 * @param options - `{ router }`, an existing router, or the options of a new one (as for `new IrtRouter(options)`);
 *   with `routing` (`"step"`, the default, or `"run"`) and `runCostWeight`.
 * @throws MissingDependencyError (`DEPENDENCY_MISSING`) when the optional peer dependency `langchain` is not installed.
 * @returns The middleware, with the router it uses as `.router`.
 */
export function irtRouterMiddleware(options: IrtRouterMiddlewareOptions) {
  assertLangchainInstalled("irtRouterMiddleware");
  const router = routerOf(options);
  const { routing = "step", runCostWeight } = middlewareRouting(options as unknown as Record<string, unknown>);
  const engine = engineOf(router);
  const pinned = routing === "run" ? pinnedRuns(router, runCostWeight, engine.attemptTimeout) : undefined;
  const middleware = createMiddleware({
    name: "IrtRouterMiddleware",
    stateSchema: (stateSchema ??= buildStateSchema()),
    beforeAgent: (state) => {
      const irtRouterRunId = agentRunId();
      noteDeadline(irtRouterRunId);
      return { irtRouterRunId, irtRouterRoutes: [], ...pinned?.start(irtRouterRunId, state.messages) };
    },
    wrapModelCall: async (request, handler) => {
      if (pinned) return pinned.call(request, handler, request.state, request.runtime?.signal);
      // a model an outer middleware substituted after this step's candidates failed (modelFallbackMiddleware listed
      // before this one) is honoured as it is, and the step has no decision of the router's
      const handed = HANDED.get(request.messages);
      if (handed !== undefined && request.model !== handed) return handler(request);
      engine.noteToolErrors(toRouteMessages(request.messages));
      const system = request.systemMessage?.text ? [request.systemMessage as BaseMessage] : [];
      const plan = await engine.plan(toRouteMessages([...system, ...request.messages]), {
        toolsBound: (request.tools?.length ?? 0) > 0,
        bindsTools: true,
        runId: request.state.irtRouterRunId,
        task: agentTask(),
      });
      let witness: AnswerWitness | undefined;
      const step = stepBound(request.state.irtRouterRunId, engine.attemptTimeout);
      const call = async (slot: ChatSlot, i: number) => {
        const bound = new AttemptBound(slot.id, step.ms(), request.runtime?.signal);
        try {
          const out = await bound.race(
            routedRequest(request, slot, plan.decision, i, (witness = new AnswerWitness())).then(handler),
          );
          return checkStepReply(out, slot.id);
        } finally {
          bound.dispose();
        }
      };
      let routed: { out: Awaited<ReturnType<typeof handler>>; slot: ChatSlot };
      try {
        routed = await callInOrder(plan, call, {
          cancelled: (error) => isAbort(error, request.runtime?.signal) || isAbortReason(error) || step.pastDeadline(),
          fallbackOn: engine.fallbackOn,
        });
      } catch (error) {
        HANDED.set(request.messages, request.model);
        engine.settle(plan);
        throw error;
      }
      const { out, slot } = routed;
      if (!witness?.answered) markSubstituted(plan.decision, slot.id);
      const usage = usableUsage(aiMessageOf(out)?.usage_metadata, slot.id, (k, m) => engine.warnOnce(k, m));
      engine.recordSpend(plan, slot.id, witness?.answered ? tokenUsage(usage) : undefined);
      return responseWithDecision(out, plan.decision);
    },
    afterModel: (state) => {
      if (pinned) {
        const served = pinned.served(state.irtRouterRunId);
        return served ? { irtRouterRunModels: [...served] } : undefined;
      }
      const decision = unloggedDecision(state);
      return decision ? { irtRouterRoutes: [...(state.irtRouterRoutes ?? []), decision] } : undefined;
    },
    // only with routing: "run" (an afterAgent hook changes the agent's graph)
    ...(pinned && {
      afterAgent: (state: { irtRouterRunId?: string }) => {
        pinned.end(state.irtRouterRunId);
        return undefined;
      },
    }),
  });
  return Object.assign(middleware, { router });
}
