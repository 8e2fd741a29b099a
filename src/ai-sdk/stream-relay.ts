/**
 * A child's stream under the router: opened and read up to its first output, so that a child that fails before
 * answering (its `doStream` throws, or its stream errors or ends before any output) falls back to the next model;
 * then relayed part by part, each answered part tagged with the model and decision, and the `finish` part's usage
 * recorded (realized cost, the run's prompt cache) and its `providerMetadata["irt-router"]` set to the decision.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { LanguageModelV3StreamResult } from "@ai-sdk/provider";
import type { CorePlan, RouterCore } from "../core/router-core.js";
import { ModelFaultError } from "../errors.js";
import { errorFinishFault } from "./error-finish.js";
import { decisionMetadata, tokenUsage } from "./route-metadata.js";
import { PROVIDER_KEY, partTag, tagged } from "./prompt-messages.js";

/**
 * The stream parts that carry no output, so do not commit the call to the model: every part type of the
 * `LanguageModelV3StreamPart` and `LanguageModelV4StreamPart` unions that is neither content (text, reasoning, tool
 * input, tool call or result, tool approval request, file, source, custom) nor the `finish` or `error` that ends a
 * reply. `ping` is V4's keep-alive.
 */
const PREAMBLE = new Set(["stream-start", "response-metadata", "raw", "ping"]);

/** A child's stream, read up to its first output part. */
export interface OpenedStream {
  readonly result: LanguageModelV3StreamResult;
  readonly reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>;
  /** The parts read so far (the preamble and the first output part). */
  readonly buffered: readonly LanguageModelV3StreamPart[];
  /**
   * Set when the first output part is a `finish` with reason "error": the reply has no output (the router falls back,
   * or, with no model left, relays it as it is, the failure recorded).
   */
  readonly fault?: ModelFaultError;
}

/**
 * Opens the stream of child `modelId` and reads it up to its first output part. Throws (for the caller to fall
 * back) when `doStream` throws, when the stream errors or sends an `error` part first, and (a
 * {@link ModelFaultError}) when it ends before any output; a first output part that is a `finish` with reason "error"
 * is returned with its `fault`.
 */
export async function openStream(
  child: LanguageModelV3,
  modelId: string,
  options: LanguageModelV3CallOptions,
): Promise<OpenedStream> {
  const result = await child.doStream(options);
  const reader = result.stream.getReader();
  const buffered: LanguageModelV3StreamPart[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        const read = buffered.length > 0 ? ` (after ${buffered.map((p) => p.type).join(", ")})` : "";
        throw new ModelFaultError(modelId, "reply", `model "${modelId}"'s stream ended before any output${read}.`);
      }
      if (value.type === "error") throw value.error;
      buffered.push(value);
      if (PREAMBLE.has(value.type)) continue;
      // the first output part: a finish here ends a reply with no output
      const fault = value.type === "finish" ? errorFinishFault(modelId, value.finishReason) : undefined;
      return { result, reader, buffered, ...(fault && { fault }) };
    }
  } catch (error) {
    reader.cancel(error).catch(() => undefined);
    throw error;
  }
}

/** The relayed stream of an opened child stream (see the module comment). */
export function relayStream(
  core: RouterCore,
  plan: CorePlan,
  modelId: string,
  opened: OpenedStream,
  startedAt: number,
): ReadableStream<LanguageModelV3StreamPart> {
  const tag = partTag(modelId, plan.decision.decisionId);
  let over = opened.fault !== undefined; // a faulty reply relayed as it is: its failure is recorded already
  const answered = (usage?: Parameters<typeof tokenUsage>[0]) => {
    if (over) return;
    over = true;
    core.served(plan, modelId, tokenUsage(usage), performance.now() - startedAt);
  };
  const broke = (error: unknown) => {
    if (over) return;
    over = true;
    core.failed(plan, modelId, error, { ms: performance.now() - startedAt, cancelled: true });
  };
  const out = (part: LanguageModelV3StreamPart): LanguageModelV3StreamPart => {
    if (part.type === "finish") {
      answered(part.usage);
      return {
        ...part,
        providerMetadata: { ...part.providerMetadata, [PROVIDER_KEY]: decisionMetadata(plan.decision) },
      };
    }
    if (part.type === "error") broke(part.error);
    return tagged(part, tag);
  };
  const { reader } = opened;
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of opened.buffered) controller.enqueue(out(part));
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          answered(); // ended without a finish part: the estimate stands in for the usage
          controller.close();
        } else controller.enqueue(out(value));
      } catch (error) {
        broke(error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      broke(reason);
      await reader.cancel(reason);
    },
  });
}
