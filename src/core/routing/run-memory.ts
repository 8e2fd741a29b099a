/**
 * What the router remembers of each agent run between its calls: the prompt each model last served in the run and
 * when (the prefix that model's provider has cached), and the last call served, so that a step sent again can be
 * told apart. Prompts are compared message by message; each message's key and token estimate is computed once per
 * message object (agents resend the same objects every step).
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { LruCache } from "../../encoders/lru.js";
import { estimateTokens } from "../../policy/tokens.js";
import { messageText } from "./routing-text.js";

/** A call's messages as the cache sees them: one key per message and the running token total. */
export interface PromptShape {
  /** One key per message (type, text, tool calls, tool call id): equal keys mean the provider sees equal input. */
  readonly keys: readonly string[];
  /** `tokens[i]` = estimated tokens of messages 0..i together; the last is the call's input estimate. */
  readonly tokens: readonly number[];
}

interface MessageFacts {
  readonly key: string;
  readonly tokens: number;
}

const FACTS = new WeakMap<BaseMessage, MessageFacts>();

/** Key and token estimate of one message (memoised per message object). */
function factsOf(message: BaseMessage): MessageFacts {
  const known = FACTS.get(message);
  if (known) return known;
  const text = messageText(message);
  const calls =
    AIMessage.isInstance(message) && message.tool_calls?.length
      ? JSON.stringify(message.tool_calls.map((c) => [c.name, c.args]))
      : "";
  const toolCallId = ToolMessage.isInstance(message) ? message.tool_call_id : "";
  // One token for the separator between messages, as in a prompt that joins them.
  const facts = {
    key: `${message.getType()}\u0000${toolCallId}\u0000${calls}\u0000${text}`,
    tokens: estimateTokens(text) + estimateTokens(calls) + 1,
  };
  FACTS.set(message, facts);
  return facts;
}

/** The {@link PromptShape} of a call's messages. */
export function promptShape(messages: readonly BaseMessage[]): PromptShape {
  const keys: string[] = [];
  const tokens: number[] = [];
  let total = 0;
  for (const m of messages) {
    const facts = factsOf(m);
    keys.push(facts.key);
    total += facts.tokens;
    tokens.push(total);
  }
  return { keys, tokens };
}

/** Estimated input tokens of a prompt (0 for no messages). */
export function promptTokens(shape: PromptShape): number {
  return shape.tokens.length > 0 ? shape.tokens[shape.tokens.length - 1]! : 0;
}

/** How many leading messages two prompts share. */
export function sharedPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

interface Served {
  readonly keys: readonly string[];
  /** When the model answered (ms on the router's clock). */
  readonly at: number;
}

interface RunRecord {
  /** Per registered model: the prompt it last served in this run. */
  readonly byModel: Map<string, Served>;
  /** The last call of the run that was answered, and by which model. */
  last?: { readonly slotId: string; readonly keys: readonly string[] };
}

/** Options of a {@link RunMemory}. */
export interface RunMemoryOptions {
  /** How long a served prompt stays cached after its call (ms). */
  readonly lifetimeMs: number;
  /** The clock (ms); default `Date.now`. */
  readonly now?: () => number;
  /** Runs remembered (least recently used dropped first). */
  readonly maxRuns: number;
}

/** Per run id: the prompt each model last served and when, and the last answered call. */
export class RunMemory {
  private readonly runs: LruCache<string, RunRecord>;
  private readonly now: () => number;

  constructor(private readonly options: RunMemoryOptions) {
    this.runs = new LruCache(options.maxRuns);
    this.now = options.now ?? Date.now;
  }

  /**
   * Input tokens of `shape` that `slotId`'s provider has cached for this run: the tokens of the messages its last
   * prompt in the run shares with this one, when that call was at most `lifetimeMs` ago. 0 without a run id.
   */
  cachedTokens(runId: string | undefined, slotId: string, shape: PromptShape): number {
    if (runId === undefined) return 0;
    const served = this.runs.peek(runId)?.byModel.get(slotId);
    if (!served || this.now() - served.at > this.options.lifetimeMs) return 0;
    const shared = sharedPrefix(served.keys, shape.keys);
    return shared > 0 ? shape.tokens[shared - 1]! : 0;
  }

  /** Notes that `slotId` answered a call of the run with this prompt (the provider now holds it in its cache). */
  served(runId: string | undefined, slotId: string, shape: PromptShape): void {
    if (runId === undefined) return;
    let run = this.runs.get(runId);
    if (!run) {
      run = { byModel: new Map() };
      this.runs.set(runId, run);
    }
    run.byModel.set(slotId, { keys: shape.keys, at: this.now() });
    run.last = { slotId, keys: shape.keys };
  }

  /** The run's last answered call: which model served it and its prompt. */
  lastServed(runId: string | undefined): { readonly slotId: string; readonly keys: readonly string[] } | undefined {
    return runId === undefined ? undefined : this.runs.peek(runId)?.last;
  }
}
