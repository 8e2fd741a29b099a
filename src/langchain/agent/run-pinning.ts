/**
 * Run-level routing inside {@link irtRouterMiddleware} (`routing: "run"`): one model for the whole agent run, chosen
 * once at its start from the task text (the run-level router of src/runs, `IrtRouter.routeRun`), and every model call
 * of the run sent to it, which keeps the provider's prompt cache warm. A call that throws, or gives no answer within the
 * router's `attemptTimeout`, falls back to the next model by the run decision's p, as per-step routing does; the models
 * that answered are recorded for feedback.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { NoCandidatesError, ValidationError } from "../../errors.js";
import type { RunDecision } from "../../runs/run-decision.js";
import type { RunTask } from "../../runs/options.js";
import { isAbort, isAbortReason } from "../calls/delegate.js";
import { AttemptBound } from "../calls/attempt.js";
import type { ChatSlot } from "../bridge/chat-engine.js";
import type { IrtRouter } from "../model/router.js";
import { agentTask, nativeIfSupported, stepBound, type StepBound } from "./agent-step.js";

/** The task of an agent run: the text of its last human message (what the agent was asked), with the call's hint. */
export function runTaskOf(messages: readonly BaseMessage[], hint: string | undefined): RunTask {
  const human = [...messages].reverse().find((m) => HumanMessage.isInstance(m));
  const text = human?.text.trim() ?? "";
  if (text.length === 0) {
    throw new ValidationError(
      "routing: \"run\" chooses the run's model from its task: the agent's input needs a user message with text.",
      { path: "messages" },
    );
  }
  return hint === undefined ? { text } : { text, hint };
}

/**
 * The models to call for a step of a run pinned by `decision`: its chosen model, then (on a failure) the others by
 * the decision's p, leaving out those without `bindTools()` (createAgent calls it on every model).
 */
export function pinnedOrder(router: IrtRouter, decision: RunDecision): ChatSlot[] {
  const slots = router.modelIds.map((id) => ({ id, model: router.modelFor(id) }));
  const ids = [decision.chosen, ...decision.candidates.map((c) => c.modelId).filter((id) => id !== decision.chosen)];
  const order = ids
    .map((id) => slots.find((s) => s.id === id))
    .filter(
      (s): s is { id: string; model: BaseChatModel } => s !== undefined && typeof s.model.bindTools === "function",
    );
  if (order.length === 0) {
    throw new NoCandidatesError(
      ids.map((id) => ({ id, reason: "has no bindTools(), which createAgent calls on every model it is given" })),
    );
  }
  return order as ChatSlot[];
}

/**
 * One step of a pinned run: the handler called with the pinned model, then with the next ones while a call throws
 * (never after an abort or past the call's deadline). Each attempt is bounded as per-step routing's are: abandoned
 * after `ms()` milliseconds (the router's `attemptTimeout`, within the call's `timeout`) whatever the model does, and
 * then the next model is tried. Returns the response and the id of the model that gave it.
 */
export async function callPinned<Req extends { model: unknown; responseFormat?: unknown }, Res>(
  request: Req,
  handler: (request: Req) => Res | Promise<Res>,
  order: readonly ChatSlot[],
  signal: AbortSignal | undefined,
  bound: StepBound,
): Promise<{ out: Res; modelId: string }> {
  let last: unknown;
  for (const slot of order) {
    const attempt = new AttemptBound(slot.id, bound.ms(), signal);
    try {
      const call = async () =>
        handler({
          ...request,
          model: slot.model,
          responseFormat: await nativeIfSupported(request.responseFormat, slot.model),
        });
      const out = await attempt.race(call());
      return { out, modelId: slot.id };
    } catch (error) {
      if (isAbort(error, signal) || isAbortReason(error) || bound.pastDeadline()) throw error;
      last = error;
    } finally {
      attempt.dispose();
    }
  }
  throw last;
}

/** What `routing: "run"` adds to the middleware's hooks (one per middleware; see the module comment). */
export interface PinnedRuns {
  /** At the run's start: route it, and the state entries to set. */
  start(
    runId: string,
    messages: readonly BaseMessage[],
  ): { irtRouterRun: RunDecision; irtRouterRunTask: RunTask; irtRouterRunModels: string[] };
  /** One model call of the run, sent to its pinned model (falling back by p); records the model that answered. */
  call<Req extends { model: unknown; responseFormat?: unknown }, Res>(
    request: Req,
    handler: (request: Req) => Res | Promise<Res>,
    state: { irtRouterRun?: RunDecision; irtRouterRunId?: string },
    signal: AbortSignal | undefined,
  ): Promise<Res>;
  /** The models that answered the run's calls so far. */
  served(runId: string | undefined): string[] | undefined;
  /** At the run's end. */
  end(runId: string | undefined): void;
}

/**
 * The run-level hooks of a middleware over `router`, deciding with `costWeight` (default: the router's), each model
 * call bounded by `attemptTimeout` (the router's option; default 10 minutes) as per-step routing's are.
 */
export function pinnedRuns(
  router: IrtRouter,
  costWeight: number | undefined,
  attemptTimeout: number | undefined,
): PinnedRuns {
  void router.runs; // fails now, not at the first run, when a model has no price
  const served = new Map<string, string[]>();
  return {
    start(runId, messages) {
      const irtRouterRunTask = runTaskOf(messages, agentTask());
      const irtRouterRun = router.routeRun(irtRouterRunTask, costWeight === undefined ? {} : { costWeight });
      // a run that threw never reaches afterAgent: keep the map bounded (oldest first)
      if (served.size >= 1000) served.delete(served.keys().next().value!);
      served.set(runId, []);
      return { irtRouterRun, irtRouterRunTask, irtRouterRunModels: [] };
    },
    async call(request, handler, state, signal) {
      const decision = state.irtRouterRun;
      if (!decision) return handler(request);
      // bounded as per-step routing's attempts are (irt-router-middleware.ts)
      const bound = stepBound(state.irtRouterRunId, attemptTimeout);
      const { out, modelId } = await callPinned(request, handler, pinnedOrder(router, decision), signal, bound);
      if (state.irtRouterRunId !== undefined) served.get(state.irtRouterRunId)?.push(modelId);
      return out;
    },
    served: (runId) => (runId === undefined ? undefined : served.get(runId)),
    end(runId) {
      if (runId !== undefined) served.delete(runId);
    },
  };
}
