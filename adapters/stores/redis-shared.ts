/**
 * The decision log and the per-run spend a `RedisStore` keeps for every process of one prefix, each with a time to
 * live: a decision (what feedback needs) under `{prefix}:decision:<id>`, a run's decision ids in the set
 * `{prefix}:run:<runId>`, and a run's spend (USD, a float counter) under `{prefix}:spend:<runId>`.
 */
import type { Redis } from "ioredis";
import type { SharedDecision, SharedDecisionLog, SharedSpend } from "../../src/langchain/contracts/router-store.js";
import { RESERVE, runScript, type storeKeys } from "./redis-scripts.js";

type Keys = ReturnType<typeof storeKeys>;

export class RedisDecisionLog implements SharedDecisionLog {
  constructor(
    private readonly client: Redis,
    private readonly keys: Keys,
    /** Seconds a decision (and its run's index) is kept. */
    readonly ttlSeconds: number,
  ) {}

  async put(entry: SharedDecision): Promise<void> {
    const { decisionId, runId } = entry.decision;
    const multi = this.client.multi().set(this.keys.decision(decisionId), JSON.stringify(entry), "EX", this.ttlSeconds);
    if (runId !== undefined) multi.sadd(this.keys.run(runId), decisionId).expire(this.keys.run(runId), this.ttlSeconds);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0]!;
  }

  async get(decisionId: string): Promise<SharedDecision | undefined> {
    const json = await this.client.get(this.keys.decision(decisionId));
    return json === null ? undefined : (JSON.parse(json) as SharedDecision);
  }

  async ofRun(runId: string): Promise<SharedDecision[]> {
    const ids = await this.client.smembers(this.keys.run(runId));
    if (ids.length === 0) return [];
    const values = await this.client.mget(ids.map((id) => this.keys.decision(id)));
    return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as SharedDecision);
  }
}

export class RedisSpend implements SharedSpend {
  constructor(
    private readonly client: Redis,
    private readonly keys: Keys,
    private readonly ttlSeconds: number,
    private readonly routingMs: number,
  ) {}

  async spent(runId: string): Promise<number> {
    const value = await withTimeout(this.client.get(this.keys.spend(runId)), this.routingMs);
    return value === null ? 0 : Number(value);
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

/** The promise's value, or a rejection after `ms` (the command itself goes on). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
