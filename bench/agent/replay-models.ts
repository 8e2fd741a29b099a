/**
 * The replay side of the agent-run benchmark: chat models that answer from a dataset's recorded labels (real
 * `BaseChatModel` subclasses, so the router calls them as it calls any provider), and an encoder that serves the
 * dataset's cached embeddings by text.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { answerTokensOf, type AgentWorld } from "./world.js";

/** The tool every step's answer is submitted to (the agent's check of the step). */
export const SUBMIT_TOOL = "submit_answer";

/**
 * Token counts of the messages of the runs, by message object: the harness sets them on the messages it builds (and
 * on the answers it appends), the replay models read them to report `usage_metadata.input_tokens`.
 */
export class TokenLedger {
  private readonly counts = new WeakMap<BaseMessage, number>();
  set(message: BaseMessage, tokens: number): void {
    this.counts.set(message, tokens);
  }
  get(message: BaseMessage): number {
    const n = this.counts.get(message);
    if (n === undefined) throw new Error(`TokenLedger: a message of type ${message.getType()} has no token count`);
    return n;
  }
  sum(messages: readonly BaseMessage[]): number {
    let n = 0;
    for (const m of messages) n += this.get(m);
    return n;
  }
}

/** The item a step is about, from the id the harness gives its human message (`.../item-<index>`). */
export function itemOfMessage(message: BaseMessage): number | undefined {
  const match = /\/item-(\d+)$/.exec(String(message.id ?? ""));
  return match ? Number(match[1]) : undefined;
}

/** The step an answer message answers: the item and model index the replay model put in its tool call. */
export function readReplayAnswer(message: BaseMessage): { item: number; model: number } {
  const call = (message as AIMessage).tool_calls?.find((c) => c.name === SUBMIT_TOOL);
  const args = call?.args as { item?: unknown; model?: unknown } | undefined;
  if (typeof args?.item !== "number" || typeof args.model !== "number") {
    throw new Error(`not a replay answer: no ${SUBMIT_TOOL} tool call with item and model`);
  }
  return { item: args.item, model: args.model };
}

/**
 * Text whose token estimate (`estimateTokens`) is `tokens`: a short lead and a run of dots, which the estimator
 * prices at 1.5 characters per token in one step (long histories stay cheap to estimate in the benchmark).
 */
export function fillerText(lead: string, tokens: number, leadTokens: number): string {
  const rest = Math.max(0, Math.round(tokens - leadTokens));
  return rest === 0 ? lead : `${lead} ${".".repeat(Math.max(2, Math.round(rest * 1.5)))}`;
}

/**
 * A chat model that answers one model's recorded answers: it finds the step's item from the latest human message
 * (its id, set by the harness), answers with a `submit_answer` tool call naming the item and itself, a text as long
 * as the model's answer was (its tokens implied by the recorded cost, or estimated), and `usage_metadata` with the
 * call's input tokens (from the ledger) and those answer tokens. It binds tools as itself (the tool list does not
 * change what it answers).
 */
export class ReplayChatModel extends BaseChatModel {
  calls = 0;
  constructor(
    readonly world: AgentWorld,
    readonly modelIndex: number,
    private readonly ledger: TokenLedger,
  ) {
    super({});
  }
  static override lc_name(): string {
    return "ReplayChatModel";
  }
  _llmType(): string {
    return "replay";
  }
  override bindTools(): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls++;
    let item: number | undefined;
    for (let k = messages.length - 1; k >= 0 && item === undefined; k--) {
      if (messages[k]!.getType() === "human") item = itemOfMessage(messages[k]!);
    }
    if (item === undefined) throw new Error("ReplayChatModel: no human message with an item id in the call");
    const id = this.world.models[this.modelIndex]!;
    const outputTokens = answerTokensOf(this.world, item, this.modelIndex);
    const inputTokens = this.ledger.sum(messages);
    const message = new AIMessage({
      content: fillerText(`${id}:`, outputTokens, 2),
      tool_calls: [
        {
          name: SUBMIT_TOOL,
          args: { item, model: this.modelIndex },
          id: `call-${this.modelIndex}-${this.calls}`,
          type: "tool_call",
        },
      ],
      usage_metadata: {
        input_tokens: inputTokens,
        output_tokens: Math.round(outputTokens),
        total_tokens: inputTokens + Math.round(outputTokens),
      },
    });
    return { generations: [{ message, text: "" }] };
  }
}

/**
 * A query encoder that serves stored vectors by text (the dataset's cached embeddings): the router embeds the
 * routing text of each step, which is the item's text, so every call is a lookup. A text it does not hold is an
 * error (the benchmark never embeds anew).
 */
export class VectorTableEncoder implements QueryEncoder {
  private readonly byText = new Map<string, Float32Array>();
  constructor(
    readonly id: string,
    readonly dim: number,
    texts: readonly string[],
    vectors: Float32Array,
  ) {
    texts.forEach((t, i) => {
      if (!this.byText.has(t)) this.byText.set(t, vectors.subarray(i * dim, (i + 1) * dim));
    });
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = this.byText.get(t);
      if (!v) throw new Error(`VectorTableEncoder: no stored vector for the text "${t.slice(0, 60)}..."`);
      return v;
    });
  }
}
