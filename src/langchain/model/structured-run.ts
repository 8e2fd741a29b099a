/**
 * `invoke` / `stream` of a router made by `withStructuredOutput`: it returns the chosen child's parsed output, not a
 * chat message, so it runs as LangChain's own structured-output runnables do, as a chain. When the call names its run
 * (`runId`; `streamEvents` always does), the router opens that chain run itself and every attempt runs nested under
 * it with an id of its own, so the caller's id names the call that answered, also after a fallback.
 */
import { CallbackManager, type CallbackManagerForChainRun, type Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { Serialized } from "@langchain/core/load/serializable";
import type { Runnable } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import { ChildRuns } from "../calls/child-runs.js";
import { attachDecision, runIdOf } from "../calls/delegate.js";
import { usableUsage, type AttemptBound } from "../calls/attempt.js";
import type { AttemptHow } from "../calls/fallback-chain.js";
import { relayChunks, startStream, type StartedStream } from "../calls/stream-relay.js";
import { tokenUsage, type ChatEngine, type ChatPlan, type ChatSlot } from "../bridge/chat-engine.js";

type Options = Partial<BaseChatModelCallOptions>;

/** What the structured path needs of its router. */
export interface StructuredHost {
  readonly engine: ChatEngine;
  readonly name: string;
  /** The router's own `callbacks`, `tags`, `metadata`, `verbose` (constructor fields). */
  readonly own: { callbacks?: Callbacks; tags?: string[]; metadata?: Record<string, unknown>; verbose?: boolean };
  serialized(): Serialized;
  messages(input: BaseLanguageModelInput): BaseMessage[];
  attempt<T>(
    messages: BaseMessage[],
    config: Options | undefined,
    how: AttemptHow<T>,
  ): Promise<{ out: T; plan: ChatPlan; slot: ChatSlot; bound: AttemptBound }>;
}

/**
 * The call options with the router's own `callbacks`, `tags`, `metadata` and `verbose` merged in, as
 * `BaseChatModel.generate` does for every call: this path hands the call to the child, so they travel with it.
 */
function withOwnConfig(host: StructuredHost, options?: Options): Options | undefined {
  const { callbacks, verbose } = host.own;
  const ownTags = host.own.tags ?? [];
  const ownMetadata = host.own.metadata ?? {};
  if (callbacks === undefined && ownTags.length === 0 && Object.keys(ownMetadata).length === 0 && !verbose)
    return options;
  const tags = [...ownTags, ...(options?.tags ?? []).filter((t) => !ownTags.includes(t))];
  const merged = CallbackManager.configure(options?.callbacks, callbacks, undefined, undefined, undefined, undefined, {
    verbose,
  });
  return { ...options, callbacks: merged, tags, metadata: { ...ownMetadata, ...options?.metadata } };
}

/** Opens the router's own chain run when the call names one (see the module comment). */
async function openRun(host: StructuredHost, input: BaseLanguageModelInput, options: Options | undefined) {
  if (typeof options?.runId !== "string") return { options, attempts: undefined, run: undefined };
  const manager = await CallbackManager.configure(
    options.callbacks,
    undefined,
    options.tags,
    undefined,
    options.metadata,
  );
  if (!manager) return { options, attempts: undefined, run: undefined };
  const run = await manager.handleChainStart(
    host.serialized(),
    { input },
    options.runId,
    undefined,
    undefined,
    undefined,
    options.runName ?? host.name,
  );
  // getChild() passes on inheritable handlers only; the router's own constructor callbacks are local ones
  // (withOwnConfig) and still see the child's run, as they do when the child is called directly.
  const child = run.getChild();
  for (const handler of manager.handlers)
    if (!manager.inheritableHandlers.includes(handler)) child.addHandler(handler, false);
  const attempts = new ChildRuns(run.runId);
  child.addHandler(attempts, false);
  const { runId: _own, ...rest } = options;
  return { run, attempts, options: { ...rest, callbacks: child } };
}

export async function invokeStructured(
  host: StructuredHost,
  input: BaseLanguageModelInput,
  callOptions?: Options,
): Promise<unknown> {
  const own = withOwnConfig(host, callOptions);
  const { run, options } = await openRun(host, input, own);
  try {
    const { out, plan, slot } = await host.attempt(host.messages(input), options, {
      call: (child, config) => child.invoke(input, config),
      runId: runIdOf(own),
    });
    const raw = (out as { raw?: { usage_metadata?: unknown } } | null)?.raw; // with includeRaw
    host.engine.recordSpend(
      plan,
      slot.id,
      tokenUsage(usableUsage(raw?.usage_metadata, slot.id, (k, m) => host.engine.warnOnce(k, m))),
    );
    const output = attachDecision(out, plan.decision); // with the realized cost
    await run?.handleChainEnd({ output });
    return output;
  } catch (error) {
    await run?.handleChainError(error);
    throw error;
  }
}

export async function streamStructured(
  host: StructuredHost,
  input: BaseLanguageModelInput,
  callOptions?: Options,
): Promise<IterableReadableStream<unknown>> {
  const own = withOwnConfig(host, callOptions);
  const { run, attempts, options } = await openRun(host, input, own);
  let started: Awaited<ReturnType<StructuredHost["attempt"]>> & { out: StartedStream };
  try {
    const call = (child: Runnable, config: Record<string, unknown>, bound: AttemptBound) =>
      startStream(child, input, config, bound);
    started = await host.attempt(host.messages(input), options, { call, stream: true, runId: runIdOf(own) });
  } catch (error) {
    await run?.handleChainError(error);
    throw error;
  }
  return IterableReadableStream.fromAsyncGenerator(relayRun(host, started, run, attempts));
}

/** The relay, ending the router's own run with what was streamed or the error that stopped it. */
async function* relayRun(
  host: StructuredHost,
  started: { out: StartedStream; plan: ChatPlan; slot: ChatSlot; bound: AttemptBound },
  run?: CallbackManagerForChainRun,
  attempts?: ChildRuns,
): AsyncGenerator<unknown> {
  let output: any;
  let failure: unknown;
  try {
    for await (const chunk of relayChunks(started.out, { ...started, engine: host.engine })) {
      if (run)
        output = output === undefined ? chunk : typeof output?.concat === "function" ? output.concat(chunk) : chunk;
      yield chunk;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // After an abort mid-stream the child reports its error a moment after the stream rejected: the router's run
    // ends once its attempts have (at most 1 s later), without holding up the consumer.
    if (failure !== undefined && run) {
      const ending = (attempts?.settled(1000) ?? Promise.resolve()).then(() => run.handleChainError(failure));
      ending.catch(() => undefined);
    } else await run?.handleChainEnd({ output });
  }
}
