/**
 * What the router remembers of each agent run between its calls: the prompt each model last served in the run and
 * when (the prefix that model's provider has cached), and the last call served, so that a step sent again can be
 * told apart. Prompts are compared message by message; each message's key and token estimate is computed once per
 * message object (agents resend the same objects every step). The provider's reported cache of each model's last call
 * in the run bounds what the router assumes is cached for that model's next call (see {@link cacheCeiling}).
 */
import { LruCache } from "../../encoders/lru.js";
import { estimateTokens } from "../../policy/tokens.js";
import type { RouteMessage } from "../contracts/route-message.js";

/** A call's messages as the cache sees them: one key per message and the running token total. */
export interface PromptShape {
  /** One key per message (role, text, tool calls, tool call id): equal keys mean the provider sees equal input. */
  readonly keys: readonly string[];
  /** `tokens[i]` = estimated tokens of messages 0..i together; the last is the call's input estimate. */
  readonly tokens: readonly number[];
}

interface MessageFacts {
  readonly key: string;
  readonly tokens: number;
}

const FACTS = new WeakMap<RouteMessage, MessageFacts>();

/** Key and token estimate of one message (memoised per message object). */
function factsOf(message: RouteMessage): MessageFacts {
  const known = FACTS.get(message);
  if (known) return known;
  const text = message.text;
  const calls =
    message.role === "assistant" && message.toolCalls?.length
      ? JSON.stringify(message.toolCalls.map((c) => [c.name, c.args]))
      : "";
  const toolCallId = message.role === "tool" ? (message.toolCallId ?? "") : "";
  // One token for the separator between messages, as in a prompt that joins them.
  const facts = {
    key: `${message.role}\u0000${toolCallId}\u0000${calls}\u0000${text}`,
    tokens: estimateTokens(text) + estimateTokens(calls) + 1,
  };
  FACTS.set(message, facts);
  return facts;
}

/** The {@link PromptShape} of a call's messages. */
export function promptShape(messages: readonly RouteMessage[]): PromptShape {
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

/** What the provider reported of a served call's input (token counts as the provider gives them). */
export interface ReportedCache {
  /** Input tokens of the call, cached ones included. */
  readonly inputTokens?: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (providers with explicit cache writes report them). */
  readonly cacheWriteTokens?: number;
}

interface Served {
  readonly keys: readonly string[];
  /** When the model answered (ms on the router's clock). */
  readonly at: number;
  /**
   * Most tokens of this prompt the provider can hold in its cache for the model's next call, from its reported usage
   * (in the router's token estimate); undefined when its report says nothing either way (see {@link cacheCeiling}).
   */
  readonly ceiling?: number;
}

/**
 * What the provider's report of a served call says its cache holds for the model's next call, in the router's token
 * estimate (`estimated` is the call's estimated input, `predicted` the prefix the router's own count said was cached,
 * before any earlier report bounded it):
 * - it reported cache writes: the prefix it read or wrote (cacheRead + cacheWrite), and no more (a provider with
 *   explicit cache breakpoints caches up to the last one only);
 * - it read from its cache and reports no writes (automatic caching): the whole prompt, as the router assumes;
 * - it read nothing where the router counted a cached prefix, and wrote nothing: none (the provider does not cache
 *   this prompt: caching off, below its minimum length, or a breakpoint missing);
 * - no cache figures, or nothing cached and nothing predicted: no evidence (undefined).
 */
export function cacheCeiling(
  report: ReportedCache | undefined,
  estimated: number,
  predicted: number,
): number | undefined {
  const read = report?.cacheReadTokens;
  if (read === undefined || !Number.isFinite(read)) return undefined;
  const input = report!.inputTokens;
  // Provider tokens to the router's estimate, by the call's own ratio (1 when the input was not reported).
  const scale = input !== undefined && Number.isFinite(input) && input > 0 ? estimated / input : 1;
  const written = report!.cacheWriteTokens;
  if (written !== undefined && Number.isFinite(written) && read + written > 0) return (read + written) * scale;
  if (read > 0) return undefined;
  return predicted > 0 ? 0 : undefined;
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
   * prompt in the run shares with this one, when that call was at most `lifetimeMs` ago, and at most what the
   * provider's report of that call says it holds ({@link cacheCeiling}). 0 without a run id.
   */
  cachedTokens(runId: string | undefined, slotId: string, shape: PromptShape): number {
    if (runId === undefined) return 0;
    const served = this.runs.peek(runId)?.byModel.get(slotId);
    const prefix = this.prefixTokens(served, shape);
    return served?.ceiling === undefined ? prefix : Math.min(prefix, Math.round(served.ceiling));
  }

  /** Tokens of `shape` that a model's last served prompt shares with it, when it is still cached (router's own count). */
  private prefixTokens(served: Served | undefined, shape: PromptShape): number {
    if (!served || this.now() - served.at > this.options.lifetimeMs) return 0;
    const shared = sharedPrefix(served.keys, shape.keys);
    return shared > 0 ? shape.tokens[shared - 1]! : 0;
  }

  /**
   * Notes that `slotId` answered a call of the run with this prompt (the provider now holds it in its cache), with
   * the provider's reported usage of the call when there is one.
   */
  served(runId: string | undefined, slotId: string, shape: PromptShape, report?: ReportedCache): void {
    if (runId === undefined) return;
    let run = this.runs.get(runId);
    if (!run) {
      run = { byModel: new Map() };
      this.runs.set(runId, run);
    }
    const predicted = this.prefixTokens(run.byModel.get(slotId), shape);
    const ceiling = cacheCeiling(report, promptTokens(shape), predicted);
    run.byModel.set(slotId, { keys: shape.keys, at: this.now(), ...(ceiling !== undefined ? { ceiling } : {}) });
    run.last = { slotId, keys: shape.keys };
  }

  /** The run's last answered call: which model served it and its prompt. */
  lastServed(runId: string | undefined): { readonly slotId: string; readonly keys: readonly string[] } | undefined {
    return runId === undefined ? undefined : this.runs.peek(runId)?.last;
  }
}
