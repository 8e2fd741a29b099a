import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouterError } from "../../src/errors.js";
import type { CatalogEntry, ItemParams, ModelScore, Scorer } from "../../src/scorer/types.js";

/**
 * A small real Scorer with hand-set item parameters: alpha = [1 + (text mentions a number), 1],
 * beta = 0.5 - 0.01 * (words in text, capped at 50). Abilities below make "gpt-4" the strongest,
 * "mixtral" the middle and "mistral" the weakest; prices make them expensive, mid and cheap.
 */
export class ToyScorer implements Scorer {
  readonly encoder = { id: "toy-words-2", dim: 2 };
  readonly abilityDim = 2;
  readonly models: CatalogEntry[] = [
    entry("gpt-4-1106-preview", ["gpt-4"], [2, 1], { inputPer1M: 10, outputPer1M: 30 }),
    entry("mixtral-8x7b-chat", ["mixtral"], [1, 0.5], { inputPer1M: 0.6, outputPer1M: 0.6 }),
    entry("mistral-7b-chat", ["mistral"], [0.2, 0.2], { inputPer1M: 0.2, outputPer1M: 0.2 }),
  ];
  itemParamsCalls = 0;

  async itemParams(textOrEmbedding: string | Float32Array): Promise<ItemParams> {
    this.itemParamsCalls++;
    const e = typeof textOrEmbedding === "string" ? toyEmbed(textOrEmbedding) : textOrEmbedding;
    return { alpha: Float32Array.from([1 + e[0]!, 1]), beta: 0.5 - 0.01 * e[1]! };
  }

  async predict(textOrEmbedding: string | Float32Array, modelIds?: readonly string[]): Promise<ModelScore[]> {
    const { alpha, beta } = await this.itemParams(textOrEmbedding);
    return (modelIds ?? this.models.map((m) => m.id)).map((id) => {
      const t = this.ability(id);
      return { model: id, p: 1 / (1 + Math.exp(-(alpha[0]! * t[0]! + alpha[1]! * t[1]! - beta))) };
    });
  }

  ability(modelId: string): Float32Array {
    const m = this.models.find((x) => x.id === modelId || x.aliases.includes(modelId));
    if (!m) throw new IrtRouterError("UNKNOWN_MODEL", `unknown model ${modelId}`);
    return m.ability;
  }
}

/** Deterministic toy embedding: [mentions a number (0/1), word count capped at 50]. */
export function toyEmbed(text: string): Float32Array {
  return Float32Array.from([/\d/.test(text) ? 1 : 0, Math.min(50, text.split(/\s+/).filter(Boolean).length)]);
}

/** A toy encoder matching ToyScorer (counts its calls, to observe the cache). */
export class ToyEncoder {
  readonly id = "toy-words-2";
  readonly dim = 2;
  calls = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map(toyEmbed);
  }
}

function entry(
  id: string,
  aliases: string[],
  ability: number[],
  price: { inputPer1M: number; outputPer1M: number },
): CatalogEntry {
  return { id, aliases, sources: ["toy"], ability: Float32Array.from(ability), nLabels: 100, accuracy: 0.5, price };
}

/** Collects warnings instead of printing them. */
export function quietLogger(): { warn: (m: string) => void; messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (m: string) => void messages.push(m) };
}

/** A chat model that never settles and ignores its abort signal (a hung connection in a client without timeouts). */
export class HungModel extends BaseChatModel {
  calls = 0;
  _llmType() {
    return "hung";
  }
  override bindTools() {
    return this as never;
  }
  async _generate(): Promise<ChatResult> {
    this.calls++;
    return new Promise<ChatResult>(() => undefined);
  }
  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    this.calls++;
    yield await new Promise<never>(() => undefined);
  }
}

/**
 * A chat model that answers "late" after `ms` (default 10 s) unless its signal aborts it, as provider SDKs do,
 * also when the signal is aborted already. Binds tools as itself, so an agent can use it.
 */
export class SlowModel extends BaseChatModel {
  cancelled = 0;
  finished = 0;
  private markStarted!: () => void;
  /** Resolves once a call has started (so a test can abort a call that is surely in flight). */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));
  constructor(private readonly ms = 10_000) {
    super({});
  }
  _llmType() {
    return "slow";
  }
  override bindTools() {
    return this as never;
  }
  async _generate(_m: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    await new Promise<void>((resolve, reject) => {
      const cancel = () => {
        clearTimeout(timer);
        this.cancelled++;
        reject(Object.assign(new Error("Aborted"), { name: "AbortError" }));
      };
      const timer = setTimeout(resolve, this.ms);
      if (options.signal?.aborted) return cancel();
      options.signal?.addEventListener("abort", cancel);
      this.markStarted();
    });
    this.finished++;
    return { generations: [{ message: new AIMessage("late"), text: "late" }] };
  }
}

/**
 * A tool-calling chat model that answers every call with one call of the first tool bound to it (named as the
 * provider format names it), with fixed `args`; with LangChain's default withStructuredOutput, which binds the
 * schema as a tool, it gives `args` as the structured output. Counts its bindTools and withStructuredOutput calls.
 */
export class ToolCallingFake extends BaseChatModel {
  readonly seen: { bindTools: unknown[][]; withStructuredOutput: unknown[][] };
  constructor(
    private readonly args: Record<string, unknown>,
    fields: { cache?: boolean } = {},
    private readonly tools: unknown[] = [],
    seen?: ToolCallingFake["seen"],
  ) {
    super(fields);
    this.seen = seen ?? { bindTools: [], withStructuredOutput: [] };
  }
  _llmType() {
    return "tool-calling-fake";
  }
  override bindTools(tools: unknown[], kwargs?: unknown) {
    this.seen.bindTools.push([tools, kwargs]);
    return new ToolCallingFake(this.args, { cache: this.cache !== undefined }, tools, this.seen) as never;
  }
  override withStructuredOutput(schema: any, config?: any): any {
    this.seen.withStructuredOutput.push([schema, config]);
    return super.withStructuredOutput(schema, config);
  }
  async _generate(): Promise<ChatResult> {
    const first = this.tools[0] as { name?: string; function?: { name?: string } } | undefined;
    const name = first?.function?.name ?? first?.name ?? "none";
    // a chunk, as LangChain's default structured-output parser expects
    const message = new AIMessageChunk({
      content: "",
      tool_calls: [{ name, args: this.args, id: "call_1", type: "tool_call" }],
    });
    return { generations: [{ message, text: "" }] };
  }
}

/** A `get_weather` tool that answers "Sunny in <city>" and records in `calls` each city it was called for. */
export function recordingWeatherTool() {
  const calls: string[] = [];
  const weather = tool(
    async ({ city }: { city: string }) => {
      calls.push(city);
      return `Sunny in ${city}`;
    },
    { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string() }) },
  );
  return { weather, calls };
}
