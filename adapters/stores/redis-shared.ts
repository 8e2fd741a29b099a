/**
 * The decision log and the per-run spend a `RedisStore` keeps for every process of one prefix, each with a time to
 * live: a decision (what feedback needs) under `{prefix}:decision:<id>`, a run's decision ids in the set
 * `{prefix}:run:<runId>`, and a run's spend (USD, a float counter) under `{prefix}:spend:<runId>`.
 */
import type { Redis } from "ioredis";
import type { SharedDecision, SharedDecisionLog, SharedSpend } from "../../src/core/contracts/router-store.js";
import { randomUUID } from "node:crypto";
import { garbage } from "./redis-garbage.js";
import { storedDecision } from "./stored-text.js";
import {
  MemoryBudgetLedger,
  type BudgetLimit,
  type BudgetReservation,
  type FeedbackBudgetLedger,
} from "../../src/learning/budget.js";
import { isUnavailable } from "./redis-client.js";
import { BUDGET_RESERVE, RESERVE, runScript, type storeKeys } from "./redis-scripts.js";

type Keys = ReturnType<typeof storeKeys>;

export class RedisDecisionLog implements SharedDecisionLog {
  constructor(
    private readonly client: Redis,
    private readonly keys: Keys,
    /** Seconds a decision (and its run's index) is kept. */
    readonly ttlSeconds: number,
    /** The store's `hashRunIds` pseudonymiser: run ids are kept (in keys and values) as pseudonyms. */
    private readonly hash?: (id: string) => string,
  ) {}

  private runKey(runId: string): string {
    return this.keys.run(this.hash ? this.hash(runId) : runId);
  }

  async put(given: SharedDecision): Promise<void> {
    const entry = storedDecision(given, this.hash);
    const { decisionId } = entry.decision;
    const runId = given.decision.runId;
    const multi = this.client.multi().set(this.keys.decision(decisionId), JSON.stringify(entry), "EX", this.ttlSeconds);
    if (runId !== undefined) multi.sadd(this.runKey(runId), decisionId).expire(this.runKey(runId), this.ttlSeconds);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0]!;
  }

  async get(decisionId: string): Promise<SharedDecision | undefined> {
    const key = this.keys.decision(decisionId);
    const json = await this.client.get(key);
    return json === null ? undefined : parseDecision(json, key);
  }

  /** A run's decisions, with the run id as given (the store may keep a pseudonym). */
  async ofRun(runId: string): Promise<SharedDecision[]> {
    const ids = await this.client.smembers(this.runKey(runId));
    if (ids.length === 0) return [];
    const keys = ids.map((id) => this.keys.decision(id));
    const values = await this.client.mget(keys);
    return values.flatMap((v, i) => {
      if (v === null) return [];
      const entry = parseDecision(v, keys[i]!);
      return [{ ...entry, decision: { ...entry.decision, runId } }];
    });
  }
}

export class RedisSpend implements SharedSpend {
  private readonly keys: Pick<Keys, "spend">;
  constructor(
    private readonly client: Redis,
    keys: Keys,
    private readonly ttlSeconds: number,
    private readonly routingMs: number,
    hash?: (id: string) => string,
  ) {
    this.keys = { spend: (runId) => keys.spend(hash ? hash(runId) : runId) };
  }

  async spent(runId: string): Promise<number> {
    const key = this.keys.spend(runId);
    const value = await withTimeout(this.client.get(key), this.routingMs);
    if (value === null) return 0;
    const usd = Number(value);
    if (!Number.isFinite(usd)) throw garbage(key, "a number (USD spent)", value);
    return usd;
  }

  async reserve(runId: string, seen: number, usd: number): Promise<{ ok: boolean; spent: number }> {
    const [ok, value] = (await withTimeout(
      runScript(this.client, RESERVE, [this.keys.spend(runId)], [seen, usd, this.ttlSeconds]),
      this.routingMs,
    )) as [number, string];
    return { ok: ok === 1, spent: Number(value) };
  }

  async add(runId: string, usd: number): Promise<void> {
    if (usd === 0 || !Number.isFinite(usd)) return;
    const key = this.keys.spend(runId);
    await this.client.multi().incrbyfloat(key, usd).expire(key, this.ttlSeconds).exec();
  }
}

/**
 * Feedback budgets every process of a prefix charges atomically (a Lua script: drop the expired charges, sum, charge).
 * Sources are kept as pseudonyms under `hashRunIds`. While Redis is unreachable this process charges a local ledger
 * (so feedback is buffered, as its events are) and says so once.
 */
export class RedisBudget implements FeedbackBudgetLedger {
  private readonly local = new MemoryBudgetLedger();

  constructor(
    private readonly client: Redis,
    private readonly keys: Keys,
    private readonly storedSource: (source: string) => string,
    private readonly onUnreachable: (error: unknown) => void,
  ) {}

  async reserve(source: string, weight: number, limit: BudgetLimit, now: number): Promise<BudgetReservation> {
    const member = `${weight}|${randomUUID()}`;
    let reply: [number, string, string];
    try {
      reply = (await runScript(
        this.client,
        BUDGET_RESERVE,
        [this.keys.budget(this.storedSource(source))],
        [now, limit.windowMs, limit.weight, weight, member],
      )) as [number, string, string];
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.onUnreachable(error);
      const r = this.local.reserveNow(source, weight, limit, now);
      return r.ok ? { ...r, token: `local:${r.token!}` } : r;
    }
    const [ok, used, retry] = reply;
    return ok === 1
      ? { ok: true, used: Number(used), retryAfterMs: 0, token: member }
      : { ok: false, used: Number(used), retryAfterMs: Number(retry) };
  }

  async release(source: string, token: string): Promise<void> {
    if (token.startsWith("local:")) return this.local.release(source, token.slice("local:".length));
    await this.client.zrem(this.keys.budget(this.storedSource(source)), token);
  }
}

/** A decision kept under `key`, or a {@link StoreGarbageError} naming the key when it is not one. */
function parseDecision(json: string, key: string): SharedDecision {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw garbage(key, "a decision (JSON)", json);
  }
  const d = (value as { decision?: { decisionId?: unknown; attempts?: unknown } } | null)?.decision;
  if (typeof d?.decisionId !== "string" || !Array.isArray(d.attempts)) throw garbage(key, "a decision", json);
  return value as SharedDecision;
}

/** The promise's value, or a rejection after `ms` (the command itself goes on). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
