/**
 * A chat model that stands in for a catalog model in the built-in demo: it answers every request with a short
 * canned reply naming itself and reports token usage, so the router's choice, cost accounting and feedback run as
 * with a real model. Whether its answer was right is simulated by the demo, not decided here.
 */
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { estimateTokens } from "../policy/tokens.js";

/** The output length every simulated reply reports, in tokens. */
export const SIMULATED_OUTPUT_TOKENS = 150;

export class SimulatedChatModel extends BaseChatModel {
  constructor(
    readonly modelName: string,
    fields: BaseChatModelParams = {},
  ) {
    super(fields);
  }

  override _llmType(): string {
    return "irt-router-demo";
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const inputTokens = estimateTokens(messages.map((m) => m.text).join("\n"));
    const message = new AIMessage({
      content: `[${this.modelName}] (simulated answer)`,
      usage_metadata: {
        input_tokens: inputTokens,
        output_tokens: SIMULATED_OUTPUT_TOKENS,
        total_tokens: inputTokens + SIMULATED_OUTPUT_TOKENS,
      },
    });
    return { generations: [{ message, text: message.text }] };
  }
}
