import { randomUUID } from "node:crypto";
import { z } from "zod";
import { createMiddleware, providerStrategy, ProviderStrategy, ToolStrategy } from "langchain";
import type { RunnableConfig } from "@langchain/core/runnables";
import { AIMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ValidationError } from "../errors.js";
import { snapshot, type RouteDecision } from "./decision.js";
import { childConfig, describeError, isAbort, isAbortReason } from "./delegate.js";
import type { IrtRouterOptions } from "./options.js";
import { IrtRouter, engineOf } from "./router.js";

/** Options of {@link irtRouterMiddleware}: an existing router, or the options to make one. */
export type IrtRouterMiddlewareOptions = IrtRouterOptions | { readonly router: IrtRouter };

const stateSchema = z.object({
  /** Id of the current agent run; pass it to `router.feedback(runId, outcome)`. */
  irtRouterRunId: z.string().optional(),
  /** Decision of every model call of the run, in order. */
  irtRouterRoutes: z.array(z.custom<RouteDecision>()).default([]),
});

/**
 * Agent middleware that picks the model for every step of a `createAgent` run with an
 * {@link IrtRouter}: `wrapModelCall` scores the step, calls `handler({ ...request, model })` with the
 * best candidate (the agent binds its tools and response format on that model itself), and falls back
 * to the next candidate when the call throws (never on an abort). The run's decisions are kept in
 * state (`irtRouterRoutes`, with `irtRouterRunId`) for feedback after the run.
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
 */
export function irtRouterMiddleware(options: IrtRouterMiddlewareOptions) {
  let router: IrtRouter;
  if (options && typeof options === "object" && "router" in options) {
    const keys = Object.keys(options).filter((k) => k !== "router");
    if (!(options.router instanceof IrtRouter)) {
      throw new ValidationError("options.router must be an IrtRouter (new IrtRouter({ models, ... })).", { path: "options.router" });
    }
    if (keys.length > 0) {
      throw new ValidationError(`Give either { router } or router options, not both (also got: ${keys.join(", ")}).`, {
        path: `options.${keys[0]}`,
      });
    }
    router = options.router;
  } else {
    router = new IrtRouter(options as IrtRouterOptions);
  }
  const engine = engineOf(router);
  const middleware = createMiddleware({
    name: "IrtRouterMiddleware",
    stateSchema,
    beforeAgent: () => ({ irtRouterRunId: randomUUID(), irtRouterRoutes: [] }),
    wrapModelCall: async (request, handler) => {
      engine.noteToolErrors(request.messages);
      const system = request.systemMessage?.text ? [request.systemMessage as BaseMessage] : [];
      const plan = await engine.plan([...system, ...request.messages], {
        toolsBound: (request.tools?.length ?? 0) > 0,
        runId: request.state.irtRouterRunId,
      });
      const { decision } = plan;
      let lastError: unknown;
      for (const [i, slot] of plan.order.entries()) {
        const t0 = performance.now();
        decision.chosen = slot.id;
        const config = childConfig<RunnableConfig>({}, decision, slot.id, i);
        try {
          const response = await handler({
            ...request,
            model: slot.model.withConfig({ metadata: config.metadata, tags: config.tags }) as unknown as BaseChatModel,
            responseFormat: nativeIfSupported(request.responseFormat, slot.model),
          });
          decision.attempts.push({ id: slot.id, ok: true, ms: performance.now() - t0 });
          const message = aiMessageOf(response);
          if (message) message.response_metadata = { ...message.response_metadata, irtRouter: snapshot(decision) };
          engine.recordSpend(plan, slot.id, message?.usage_metadata);
          return response;
        } catch (error) {
          decision.attempts.push({ id: slot.id, ok: false, error: describeError(error), ms: performance.now() - t0 });
          lastError = error;
          if (isAbort(error, request.runtime?.signal) || isAbortReason(error) || !engine.fallbackOn(error)) break;
        }
      }
      throw lastError;
    },
    afterModel: (state) => {
      const logged = new Set((state.irtRouterRoutes ?? []).map((d) => d.decisionId));
      for (let i = state.messages.length - 1; i >= 0; i--) {
        const m = state.messages[i]!;
        const decision = AIMessage.isInstance(m) ? (m.response_metadata?.irtRouter as RouteDecision | undefined) : undefined;
        if (decision && !logged.has(decision.decisionId)) {
          return { irtRouterRoutes: [...(state.irtRouterRoutes ?? []), decision] };
        }
      }
      return undefined;
    },
  });
  return Object.assign(middleware, { router });
}

/**
 * Keep the agent's structured-output choice as it would be for the chosen model itself: a raw schema
 * becomes a provider (native) strategy when the model's profile says it supports structured output.
 * Needed because the model is passed wrapped (`withConfig`, for the trace metadata), which hides its
 * profile from the agent.
 */
function nativeIfSupported<T>(responseFormat: T, model: BaseChatModel): T {
  if (responseFormat === undefined || responseFormat === null || Array.isArray(responseFormat)) return responseFormat;
  const profile = (model as { profile?: { structuredOutput?: boolean } }).profile;
  if (profile?.structuredOutput !== true) return responseFormat;
  if (responseFormat instanceof ToolStrategy || responseFormat instanceof ProviderStrategy) return responseFormat;
  return providerStrategy(responseFormat as never) as unknown as T;
}

/** The AIMessage inside whatever the handler returned (a message, or `{ structuredResponse, messages }`). */
function aiMessageOf(response: unknown): AIMessage | undefined {
  if (AIMessage.isInstance(response)) return response;
  const messages = (response as { messages?: unknown })?.messages;
  if (Array.isArray(messages)) {
    for (const m of messages) if (isBaseMessage(m) && AIMessage.isInstance(m)) return m;
  }
  return undefined;
}
