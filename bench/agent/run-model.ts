/**
 * Agent runs replayed from a correctness dataset (`npm run bench:agent`, docs/agents.md): the run model (steps,
 * prefix, history, prompt cache, retries, visibility of failures) and the loop that plays one run through a caller
 * (a router, or one fixed model) and accounts what it cost.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createRng } from "../../src/util/random.js";
import { estimateTokens } from "../../src/policy/tokens.js";
import type { CallPricing } from "./price-types.js";
import { fillerText, readReplayAnswer, type TokenLedger } from "./replay-models.js";
import { labelOf, ownCostOf, type AgentWorld } from "./world.js";

/** The parameters of the run model; every one is documented in docs/agents.md with its source. */
export interface RunShape {
  /** S: tokens of the fixed prefix (system prompt and tool schemas) every call of a run starts with. */
  readonly prefixTokens: number;
  /** Steps per run: minSteps + a geometric number with mean meanExtraSteps, capped at maxSteps. */
  readonly minSteps: number;
  readonly meanExtraSteps: number;
  readonly maxSteps: number;
  /** v: probability that a failed step is visible to the agent (a tool error). */
  readonly visibility: number;
  /** r: retries of a step after a visible failure. */
  readonly maxRetries: number;
  /** Seconds a provider keeps a cached prefix after its last use. */
  readonly cacheLifetimeSec: number;
  /** Simulated seconds of one model call, and of the tool call after it. */
  readonly callSeconds: number;
  readonly toolSeconds: number;
}

export const DEFAULT_RUN_SHAPE: RunShape = Object.freeze({
  prefixTokens: 2000,
  minSteps: 2,
  meanExtraSteps: 6,
  maxSteps: 30,
  visibility: 0.5,
  maxRetries: 1,
  cacheLifetimeSec: 300,
  callSeconds: 10,
  toolSeconds: 5,
});

/** One run to play: its items (one per step, from one category) and its draws of failure visibility. */
export interface RunSpec {
  readonly id: string;
  readonly category: string;
  readonly items: readonly number[];
  /** steps x (maxRetries + 1) uniforms: attempt a of step s fails visibly when its draw is < visibility. */
  readonly visibleDraws: readonly number[];
}

/** Steps of one run: minSteps + Geometric(1 / (1 + meanExtraSteps)) on {0, 1, ...}, capped at maxSteps. */
export function drawSteps(shape: RunShape, u: number): number {
  const q = shape.meanExtraSteps / (1 + shape.meanExtraSteps);
  const extra = q <= 0 ? 0 : Math.floor(Math.log(1 - u) / Math.log(q));
  return Math.min(shape.maxSteps, shape.minSteps + extra);
}

/**
 * `n` runs from the items of `pool` (indices into the world): each run's category is the category of a uniformly
 * drawn item of the pool (so categories come in proportion to their items), its steps are items of that category
 * drawn without replacement (with replacement once the category has fewer items than steps). Seeded.
 */
export function drawRuns(
  world: AgentWorld,
  pool: readonly number[],
  n: number,
  seed: number,
  shape: RunShape,
  idPrefix: string,
): RunSpec[] {
  if (pool.length === 0) throw new RangeError("drawRuns: the item pool is empty");
  const rng = createRng(seed);
  const byCategory = new Map<string, number[]>();
  for (const i of pool) {
    const c = world.categories[i]!;
    if (!byCategory.has(c)) byCategory.set(c, []);
    byCategory.get(c)!.push(i);
  }
  const runs: RunSpec[] = [];
  for (let r = 0; r < n; r++) {
    const category = world.categories[pool[rng.int(pool.length)]!]!;
    const items = byCategory.get(category)!;
    const k = drawSteps(shape, rng.next());
    const picked: number[] = [];
    const left = [...items];
    for (let s = 0; s < k; s++) {
      if (left.length === 0) left.push(...items);
      picked.push(left.splice(rng.int(left.length), 1)[0]!);
    }
    const visibleDraws = Array.from({ length: k * (shape.maxRetries + 1) }, () => rng.next());
    runs.push({ id: `${idPrefix}-${r}`, category, items: picked, visibleDraws });
  }
  return runs;
}

/** What one run did and cost. */
export interface RunResult {
  readonly id: string;
  readonly items: readonly number[];
  readonly success: boolean;
  readonly costUsd: number;
  readonly calls: number;
  /** Input tokens of every call, and the part read from the prompt cache. */
  readonly inputTokens: number;
  readonly cachedTokens: number;
  /** Calls answered by a different model than the run's previous call. */
  readonly switches: number;
  /** Model index of every call, in order. */
  readonly models: readonly number[];
  readonly visibleFailures: number;
}

/** Answers one call of a run: a router (`invoke` with the run id), or one model called directly. */
export type StepCaller = (
  messages: BaseMessage[],
  call: { readonly run: RunSpec; readonly step: number; readonly attempt: number },
) => Promise<AIMessage>;

/** The prompt-cache state of one run: per model, the input tokens of its last call and when it was made. */
export class RunCache {
  private readonly last = new Map<number, { tokens: number; at: number }>();
  constructor(private readonly lifetimeSec: number) {}
  /**
   * Tokens of a call's input read from the cache: the input of the run's previous call on the same model (a prefix
   * of this one, since a run only appends), when it was made at most `lifetimeSec` before; capped at `cacheable`.
   * Records this call as the model's latest.
   */
  hit(model: number, inputTokens: number, cacheable: number, at: number): number {
    const prev = this.last.get(model);
    const cached = prev && at - prev.at <= this.lifetimeSec ? Math.min(prev.tokens, cacheable) : 0;
    this.last.set(model, { tokens: inputTokens, at });
    return cached;
  }
}

export const TOOL_OK = "ok";
export const TOOL_ERROR = "Error: the check of this answer failed. Fix the answer and submit it again.";

/**
 * The simulated time of the runs, in ms, for a router that reads a clock (its prompt-cache lifetime): each run
 * starts an hour after the previous one (no prefix survives from one run to the next) and advances by the run
 * model's call and tool seconds.
 */
export class SimClock {
  ms = 0;
  private nextRun = 0;
  /** Starts a run; returns its start time. */
  startRun(): number {
    this.ms = this.nextRun;
    this.nextRun += 3_600_000;
    return this.ms;
  }
  readonly now = (): number => this.ms;
}

/** What the harness needs besides the world: the pricing rule, the token ledger and the run model. */
export interface RunContext {
  readonly world: AgentWorld;
  readonly shape: RunShape;
  readonly pricing: CallPricing;
  readonly ledger: TokenLedger;
  readonly prefix: SystemMessage;
  /** Set to each call's simulated time before the call (routers that price the prompt cache read it). */
  readonly clock?: SimClock;
}

/** The run's fixed prefix: a system message whose token estimate is `shape.prefixTokens`. */
export function prefixMessage(shape: RunShape, ledger: TokenLedger): SystemMessage {
  const lead = "You are an agent. Answer each task and submit the answer with the submit_answer tool. Tool schemas:";
  const message = new SystemMessage(fillerText(lead, shape.prefixTokens, estimateTokens(lead)));
  ledger.set(message, shape.prefixTokens);
  return message;
}

/**
 * Plays one run: for each step, a human message with the item's text; the caller answers (a `submit_answer` tool
 * call); the answering model's recorded label decides the step. A failure is visible with the run's draw (a
 * ToolMessage with status "error" answers the call, and the step is tried again, up to `maxRetries` times); an
 * invisible one is answered "ok" and fails the run. Every call costs its context (all messages before the step's
 * own human message, the part the run's previous call on the same model cached at the cached-input price) plus the
 * step's own call (prompt and answer).
 */
export async function playRun(ctx: RunContext, run: RunSpec, caller: StepCaller): Promise<RunResult> {
  const { world, shape, ledger } = ctx;
  const toolTokens = { ok: estimateTokens(TOOL_OK), error: estimateTokens(TOOL_ERROR) };
  const cache = new RunCache(shape.cacheLifetimeSec);
  const messages: BaseMessage[] = [ctx.prefix];
  let tokens = shape.prefixTokens;
  let clock = 0;
  let failed = false;
  let cost = 0;
  let input = 0;
  let cached = 0;
  let switches = 0;
  let visibleFailures = 0;
  const models: number[] = [];
  const start = ctx.clock?.startRun() ?? 0;
  for (let step = 0; step < run.items.length; step++) {
    const item = run.items[step]!;
    const human = new HumanMessage({ content: world.texts[item]!, id: `${run.id}/${step}/item-${item}` });
    ledger.set(human, world.promptTokens[item]!);
    messages.push(human);
    tokens += world.promptTokens[item]!;
    for (let attempt = 0; ; attempt++) {
      if (ctx.clock) ctx.clock.ms = start + clock * 1000;
      const reply = await caller([...messages], { run, step, attempt });
      const { item: answered, model } = readReplayAnswer(reply);
      if (answered !== item)
        throw new Error(`run ${run.id} step ${step}: the answer is for item ${answered}, not ${item}`);
      const context = tokens - world.promptTokens[item]!;
      // A provider without a prompt-cache discount (cached price = input price) has no cache to read.
      const price = world.prices[model]!;
      const hit = price.cachedInputPer1M < price.inputPer1M ? cache.hit(model, tokens, context, clock) : 0;
      cost +=
        ctx.pricing({ inputTokens: context, cachedTokens: hit, outputTokens: 0 }, price) +
        ownCostOf(world, item, model);
      input += tokens;
      cached += hit;
      if (models.length > 0 && models[models.length - 1] !== model) switches++;
      models.push(model);
      clock += shape.callSeconds + shape.toolSeconds;
      const y = labelOf(world, item, model);
      const ok = Number.isFinite(y) && y >= 0.5;
      const visible = !ok && run.visibleDraws[step * (shape.maxRetries + 1) + attempt]! < shape.visibility;
      const answerTokens = ledgerTokensOfAnswer(reply);
      ledger.set(reply, answerTokens);
      const callId = reply.tool_calls?.[0]?.id ?? `${run.id}/${step}/${attempt}`;
      const tool = new ToolMessage({
        content: visible ? TOOL_ERROR : TOOL_OK,
        tool_call_id: callId,
        status: visible ? "error" : "success",
      });
      ledger.set(tool, visible ? toolTokens.error : toolTokens.ok);
      messages.push(reply, tool);
      tokens += answerTokens + (visible ? toolTokens.error : toolTokens.ok);
      if (ok) break;
      if (!visible) {
        failed = true;
        break;
      }
      visibleFailures++;
      if (attempt >= shape.maxRetries) {
        failed = true;
        break;
      }
    }
  }
  return {
    id: run.id,
    items: run.items,
    success: !failed,
    costUsd: cost,
    calls: models.length,
    inputTokens: input,
    cachedTokens: cached,
    switches,
    models,
    visibleFailures,
  };
}

/** The answer tokens a reply adds to the history: its reported output tokens. */
function ledgerTokensOfAnswer(reply: AIMessage): number {
  const n = reply.usage_metadata?.output_tokens;
  if (typeof n !== "number") throw new Error("a replay answer without usage_metadata.output_tokens");
  return n;
}
