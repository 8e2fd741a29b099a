/**
 * {@link pinServerState}: the one rule the OpenAI Agents face adds to `aisdk(createIrtRouterModel(...))`. A `Runner`
 * run with `previousResponseId` or `conversationId` keeps its conversation on the provider's server, which only the
 * provider that wrote it can read: while a run holds such state, every turn is served by the model that served the
 * turn the state points at (no provider switch, no fallback to another). Turns without server-side state are routed
 * as usual.
 */
import type { Model, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";
import { PROVIDER_KEY } from "../ai-sdk/prompt-messages.js";
import { parsePinServerStateOptions, type PinServerStateOptions } from "./options.js";
import { RecentIds } from "./recent-ids.js";
import { servedByOutput, servedByStreamEvent } from "./served-by.js";

export type { PinServerStateOptions } from "./options.js";

/** The response id `aisdk()` (`@openai/agents-extensions`) gives a response whose provider sent none. */
const PLACEHOLDER_RESPONSE_ID = "FAKE_ID";

/**
 * Wraps an OpenAI Agents model made with `aisdk(createIrtRouterModel(...))` so that a run holding server-side state
 * stays on one model: a request with `conversationId` or `previousResponseId` whose conversation or previous
 * response was served by a child of this router is pinned to that child (`providerOptions["irt-router"].model`:
 * served without fallback; the router's own choice is kept in the decision as `shadow.chosen`). A request whose id
 * this wrapper has not seen (state made elsewhere) is routed, and pinned from then on. Requests without server-side
 * state pass through: each turn is routed. Streamed runs (`stream: true`) are pinned alike: the child that served a
 * streamed response is read from the parts `aisdk()` relays as `model` events (its `finish` part carries the decision).
 *
 * Note that `aisdk()` does not send `previousResponseId`/`conversationId` to the AI SDK model: with server-side
 * state the Runner sends only the turn's new items, so the child sees the history only if its provider keeps it.
 *
 * @example
 * ```ts
 * import { Agent, run } from "@openai/agents";
 * import { aisdk } from "@openai/agents-extensions/ai-sdk";
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { createIrtRouterModel } from "irt-router/ai-sdk";
 * import { pinServerState } from "irt-router/openai-agents";
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const router = createIrtRouterModel({ models: { "gpt-4o": openai("gpt-4o"), "gpt-4o-mini": openai("gpt-4o-mini") } });
 * const agent = new Agent({ name: "assistant", model: pinServerState(aisdk(router)) });
 * const first = await run(agent, "Hello");
 * await run(agent, "And then?", { previousResponseId: first.lastResponseId }); // served by the same model
 * ```
 *
 * @throws ValidationError naming the field (`options.maxIds`) when an option is not valid (`maxIds` not a positive
 * integer) or not known.
 */
export function pinServerState(model: Model, options?: PinServerStateOptions): Model {
  const { maxIds } = parsePinServerStateOptions(options);
  const byResponse = new RecentIds(maxIds);
  const byConversation = new RecentIds(maxIds);

  const pinned = (request: ModelRequest): ModelRequest => {
    const child = byConversation.get(request.conversationId) ?? byResponse.get(request.previousResponseId);
    if (child === undefined) return request;
    const providerData = request.modelSettings.providerData ?? {};
    const providerOptions = (providerData.providerOptions ?? {}) as Record<string, Record<string, unknown>>;
    return {
      ...request,
      modelSettings: {
        ...request.modelSettings,
        providerData: {
          ...providerData,
          providerOptions: { ...providerOptions, [PROVIDER_KEY]: { ...providerOptions[PROVIDER_KEY], model: child } },
        },
      },
    };
  };

  const remember = (request: ModelRequest, responseId: string | undefined, child: string | undefined) => {
    if (child === undefined) return;
    // aisdk() gives every response the provider sent no id "FAKE_ID": it names no one response, so it pins nothing
    if (responseId !== PLACEHOLDER_RESPONSE_ID) byResponse.set(responseId, child);
    byConversation.set(request.conversationId, child);
  };

  return {
    ...(model.getRetryAdvice ? { getRetryAdvice: (args) => model.getRetryAdvice!(args) } : {}),
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const response = await model.getResponse(pinned(request));
      remember(request, response.responseId, servedByOutput(response.output));
      return response;
    },
    async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
      let streamed: string | undefined; // a streamed text message does not say which child wrote it: its parts do
      for await (const event of model.getStreamedResponse(pinned(request))) {
        streamed = servedByStreamEvent(event) ?? streamed;
        if (event.type === "response_done") {
          remember(request, event.response.id, servedByOutput(event.response.output) ?? streamed);
        }
        yield event;
      }
    },
  };
}
