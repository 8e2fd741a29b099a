/** AI SDK mock children for the router's tests: scripted replies with usage, as MockLanguageModelV3 returns them. */
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Usage } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";

export const usage = (input = 1000, output = 20, cacheRead?: number, cacheWrite?: number): LanguageModelV3Usage => ({
  inputTokens: {
    total: input,
    noCache: input - (cacheRead ?? 0),
    cacheRead,
    cacheWrite,
  },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

export const toolCall = (id: string, city: string): LanguageModelV3Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName: "weather",
  input: JSON.stringify({ city }),
});

/** One scripted reply: content and usage (default: 1000 in, 20 out, no cache figures). */
export interface Reply {
  readonly content: LanguageModelV3Content[];
  readonly usage?: LanguageModelV3Usage;
}

/** The script of a tool loop, shared by the children: step k of the run gets `script[k]`, whichever child serves it. */
export class Script {
  step = 0;
  readonly served: string[] = [];
  constructor(private readonly replies: readonly Reply[]) {}

  child(id: string, fail?: (options: LanguageModelV3CallOptions) => Error | undefined): MockLanguageModelV3 {
    return new MockLanguageModelV3({
      modelId: id,
      doGenerate: async (options) => {
        const error = fail?.(options);
        if (error) throw error;
        const reply = this.replies[Math.min(this.step++, this.replies.length - 1)]!;
        this.served.push(id);
        const calls = reply.content.some((c) => c.type === "tool-call");
        return {
          content: reply.content,
          finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
          usage: reply.usage ?? usage(),
          warnings: [],
        };
      },
    });
  }
}
