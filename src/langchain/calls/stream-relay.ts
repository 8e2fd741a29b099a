/**
 * A child's stream as the router hands it on: opened within the attempt (so a failure before the first chunk falls
 * back), relayed chunk by chunk within the attempt's time limit, and, when it dies after its first chunk, recorded as
 * the failed attempt it is.
 */
import { ensureConfig, type Runnable, type RunnableConfig } from "@langchain/core/runnables";
import { AsyncGeneratorWithSetup, IterableReadableStream } from "@langchain/core/utils/stream";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import type { ChildRuns } from "./child-runs.js";
import type { RouteDecision } from "../../core/contracts/route-decision.js";
import { snapshot } from "../../core/contracts/route-decision.js";
import { attachDecision } from "./delegate.js";
import { describeError } from "../../core/contracts/error-text.js";
import { revokeAnswer } from "../../core/call-order.js";
import { ATTEMPT_TIMEOUT, StreamUsage, type AttemptBound } from "./attempt.js";
import { tokenUsage, type ChatEngine, type ChatPlan, type ChatSlot } from "../bridge/chat-engine.js";

export interface StartedStream {
  it: AsyncIterator<any>;
  first: IteratorResult<any>;
}

/** Open the child's stream and wait for its first chunk, within the attempt's bound. */
export async function startStream(
  child: Runnable,
  input: unknown,
  config: Record<string, unknown>,
  bound: AttemptBound,
): Promise<StartedStream> {
  return bound.race(
    (async () => {
      const stream = await child.stream(input, config);
      const it = stream[Symbol.asyncIterator]();
      return { it, first: await it.next() };
    })(),
  );
}

/**
 * Records that the model which had started answering failed after all: its attempt becomes a failed one (so
 * `feedback()` refuses the decision, which has no answer), and the error carries the decision as `error.irtRouter`.
 */
export function failAnswered(decision: RouteDecision, slotId: string, error: unknown): void {
  revokeAnswer(decision, slotId, `${describeError(error)} (after the stream had started)`);
  if (error instanceof Error) {
    Object.defineProperty(error, "irtRouter", { value: snapshot(decision), enumerable: false, configurable: true });
  }
}

/**
 * The child's chunks, the first with the decision on a copy, each awaited within the attempt's bound. Spend is
 * recorded from the usage streamed (usage that cannot be counted is ignored, with a warning); a consumer that stops
 * early closes the child's stream, as it would close the provider's.
 */
export async function* relayChunks(
  started: StartedStream,
  parts: { plan: ChatPlan; slot: ChatSlot; bound: AttemptBound; engine: ChatEngine },
): AsyncGenerator<any> {
  const { plan, slot, bound, engine } = parts;
  const usage = new StreamUsage();
  const warn = (key: string, message: string) => engine.warnOnce(key, message);
  try {
    if (started.first.done) return;
    const first = attachDecision(started.first.value, plan.decision);
    usage.add(first, slot.id, warn);
    yield first;
    for (let next = await bound.race(started.it.next()); !next.done; next = await bound.race(started.it.next())) {
      usage.add(next.value, slot.id, warn);
      yield next.value;
    }
  } catch (error) {
    failAnswered(plan.decision, slot.id, error);
    throw error;
  } finally {
    bound.dispose();
    // not awaited: a child stuck in its stream would hold the consumer up
    started.it.return?.()?.catch(() => undefined);
    engine.recordSpend(plan, slot.id, tokenUsage(usage.total));
  }
}

/**
 * The relayed chunks as the router's generation chunks, each token reported on the router's run (its child's run is
 * hidden from token streams: see childCallbacks). When the stream fails, waits at most 1 s for the attempts' runs to
 * end (a child that ignores its signal may never end its run), so the router's run ends after its child's.
 */
export async function* reportChunks(
  chunks: AsyncIterable<unknown>,
  runManager: CallbackManagerForLLMRun | undefined,
  runs: ChildRuns | undefined,
): AsyncGenerator<ChatGenerationChunk> {
  try {
    for await (const chunk of chunks) {
      const message = AIMessageChunk.isInstance(chunk) ? chunk : new AIMessageChunk({ content: String(chunk) });
      const generation = new ChatGenerationChunk({ message, text: message.text });
      await runManager?.handleLLMNewToken(message.text, undefined, undefined, undefined, undefined, {
        chunk: generation,
      });
      yield generation;
    }
  } catch (error) {
    await runs?.settled(1000);
    throw error;
  }
}

/**
 * A chat model's `stream`, with the call's `timeout` kept to bound each attempt (Runnable's `stream` would turn it
 * into one signal for the whole call, a cancellation that no fallback survives): `iterate` gets the config with the
 * timeout under {@link ATTEMPT_TIMEOUT}. The signal is left to the attempts, which reject at once when it aborts:
 * raced here as well, it would leave the stream suspended, and the router's run open, when a consumer aborts between
 * two chunks.
 */
export async function streamKeepingTimeout<T>(
  options: (RunnableConfig & { timeout?: number }) | undefined,
  iterate: (config: RunnableConfig) => AsyncGenerator<T>,
): Promise<IterableReadableStream<T>> {
  const { timeout, ...rest } = options ?? {};
  const config = { ...ensureConfig(rest), [ATTEMPT_TIMEOUT]: timeout };
  const { signal: _signal, ...unsignalled } = config;
  const generator = new AsyncGeneratorWithSetup({ generator: iterate(config), config: unsignalled });
  await generator.setup;
  return IterableReadableStream.fromAsyncGenerator(generator) as IterableReadableStream<T>;
}
