import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { IrtRouterError, StoreError } from "../../src/errors.js";
import type { RunOutcomeLog, RunOutcomePage, SharedRunOutcome } from "../../src/runs/run-outcome-log.js";
import { parseWith } from "../../src/util/validate.js";
import { connect, isUnavailable, redactUrl } from "./redis-client.js";
import { refusal } from "./redis-entries.js";
import { garbage } from "./redis-garbage.js";
import {
  commandMsSchema,
  connectMsSchema,
  redisClientSchema,
  redisPrefixSchema,
  redisUrlSchema,
} from "./redis-options.js";
import { runScript, storeKeys } from "./redis-scripts.js";
import { cursorOf, outcomeLines, parseCursor, takeRecord } from "./run-outcome-format.js";

/** Most records one `read` returns. */
export const REDIS_OUTCOME_PAGE = 256;
/** Most outcomes one script call appends (Lua's stack bounds the arguments of one call). */
const APPEND_CHUNK = 1000;
/** Longest record read as an outcome (characters); a longer one is reported unreadable. */
const MAX_RECORD_CHARS = 1 << 20;

const redisRunOutcomeLogOptionsSchema = z
  .strictObject({
    url: redisUrlSchema.optional(),
    client: redisClientSchema.optional(),
    prefix: redisPrefixSchema,
    timeouts: z.strictObject({ connectMs: connectMsSchema, commandMs: commandMsSchema }).prefault({}),
  })
  .refine((o) => (o.url === undefined) !== (o.client === undefined), {
    message: "give exactly one of url and client",
    path: ["url"],
  });

/** Options of {@link RedisRunOutcomeLog.open}. Unknown keys are refused. */
export interface RedisRunOutcomeLogOptions {
  /** `redis://[:password@]host:port[/db]` (or `rediss://` for TLS). Give this or `client`. */
  readonly url?: string;
  /** An ioredis client to use (not closed by `close()`). */
  readonly client?: Redis;
  /**
   * Key prefix (default "irt-router"): routers syncing with logs of one prefix share their run outcomes. The same
   * prefix as a `RedisStore`'s is fine (other keys).
   */
  readonly prefix?: string;
  /** How long connecting and each command may take before the server counts as unreachable. */
  readonly timeouts?: {
    /** Connecting (default 5000 ms). */
    readonly connectMs?: number;
    /** One command, after which the server counts as unreachable (default 2000 ms). */
    readonly commandMs?: number;
  };
}

/** The keys of a prefix's run-outcome log (the hash tag keeps them in one Redis Cluster slot). */
export function runOutcomeKeys(prefix: string) {
  return {
    /** List of outcome JSON texts, in append order. */
    outcomes: `{${prefix}}:run-outcomes`,
    /** The log's id: written by the first append to a log without one (a new or wiped log). */
    log: `{${prefix}}:run-outcomes-log`,
  };
}

/** KEYS: outcomes, log. ARGV: a new log id, then the outcome texts. Returns { log id, list length }. */
const APPEND_OUTCOMES = `
local id = redis.call('GET', KEYS[2])
if not id then
  id = ARGV[1]
  redis.call('SET', KEYS[2], id)
end
local n = redis.call('RPUSH', KEYS[1], unpack(ARGV, 2))
return { id, n }`;

/**
 * KEYS: outcomes, log. ARGV: the cursor's log id, its position, the page size. Returns { log id ('' when none),
 * position read from, records }: from the start when the cursor is another log's or past the list's end.
 */
const READ_OUTCOMES = `
local id = redis.call('GET', KEYS[2])
if not id then return { '', 0, {} } end
local from = 0
if id == ARGV[1] then from = tonumber(ARGV[2]) end
if from > redis.call('LLEN', KEYS[1]) then from = 0 end
return { id, from, redis.call('LRANGE', KEYS[1], from, from + tonumber(ARGV[3]) - 1) }`;

/**
 * A {@link RunOutcomeLog} in Redis that every process of a service shares: a list per key prefix (`RPUSH` by a
 * server-side script, so each batch lands whole and in one order) and the log's id beside it. A reader's cursor is
 * `<log id>:<index>`; a log wiped (Redis restarted without persistence, the keys deleted) gets a new id at the next
 * append, and cursors of the old one read it from the start. As durable as Redis's persistence makes it
 * (`appendonly yes`). Uses the optional peer dependency `ioredis`.
 *
 * @example
 * ```ts
 * import { RedisRunOutcomeLog } from "irt-router/adapters";
 * const log = await RedisRunOutcomeLog.open({ url: "redis://127.0.0.1:6379", prefix: "my-app" });
 * setInterval(() => void router.runs.sync(log).catch((e) => console.warn(e.message)), 30_000);
 * ```
 */
export class RedisRunOutcomeLog implements RunOutcomeLog {
  private readonly keys: ReturnType<typeof runOutcomeKeys>;
  private closed = false;

  private constructor(
    private readonly client: Redis,
    private readonly ownsClient: boolean,
    /** The key prefix. */
    readonly prefix: string,
    private readonly where: string,
  ) {
    this.keys = runOutcomeKeys(prefix);
  }

  /** Connects (or takes `client`) after validating the options; a bad option is a `ValidationError` naming it. */
  static async open(options: RedisRunOutcomeLogOptions): Promise<RedisRunOutcomeLog> {
    const parsed = parseWith(redisRunOutcomeLogOptionsSchema, options, "RedisRunOutcomeLog options");
    const { connectMs, commandMs } = parsed.timeouts;
    const client =
      parsed.client ?? (await connect(parsed.url!, { connectMs, commandMs, name: "irt-router-run-outcomes" }));
    const where = parsed.url ? `Redis at ${redactUrl(parsed.url)}` : "Redis";
    return new RedisRunOutcomeLog(client, parsed.client === undefined, parsed.prefix, where);
  }

  /** Appends the outcomes in order (a malformed one is a `ValidationError`, and nothing is written). */
  async append(outcomes: readonly SharedRunOutcome[]): Promise<void> {
    this.ensureOpen();
    const lines = outcomeLines(outcomes);
    for (let k = 0; k < lines.length; k += APPEND_CHUNK) {
      const chunk = lines.slice(k, k + APPEND_CHUNK);
      const reply = await this.command(`append ${lines.length} run outcome(s)`, () =>
        runScript(this.client, APPEND_OUTCOMES, [this.keys.outcomes, this.keys.log], [randomUUID(), ...chunk]),
      );
      this.logId(Array.isArray(reply) ? reply[0] : reply);
    }
  }

  /** Up to 256 records after `after` (from the start when absent, another log's, or the log was wiped). */
  async read(after?: string): Promise<RunOutcomePage> {
    this.ensureOpen();
    const cursor = parseCursor(after);
    const reply = await this.command("read run outcomes", () =>
      runScript(
        this.client,
        READ_OUTCOMES,
        [this.keys.outcomes, this.keys.log],
        [cursor?.log ?? "", cursor?.position ?? 0, REDIS_OUTCOME_PAGE],
      ),
    );
    const [rawId, from, records] = Array.isArray(reply) ? reply : [];
    if (rawId === "") return { outcomes: [], cursor: after ?? cursorOf("none", 0) }; // no log yet
    const id = this.logId(rawId);
    if (typeof from !== "number" || !Array.isArray(records)) throw garbage(this.keys.outcomes, "a list", records);
    const outcomes: unknown[] = [];
    const unreadable: string[] = [];
    records.forEach((text: unknown, k) => {
      const problem =
        typeof text !== "string"
          ? "is not a string"
          : text.length > MAX_RECORD_CHARS
            ? `is ${text.length} characters long, over the ${MAX_RECORD_CHARS} a record may have`
            : undefined;
      if (problem) return unreadable.push(`the record at index ${from + k} ${problem}`);
      takeRecord(text as string, `index ${from + k}`, outcomes, unreadable);
    });
    return { outcomes, ...(unreadable.length > 0 && { unreadable }), cursor: cursorOf(id, from + records.length) };
  }

  /** Closes the connection (not a `client` you gave); further calls throw a `StoreError`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }

  /** The log id a script replied with, checked (another program's value under the key is a StoreGarbageError). */
  private logId(value: unknown): string {
    if (typeof value !== "string" || !/^[A-Za-z0-9_.-]{1,100}$/.test(value)) {
      throw garbage(this.keys.log, "a run-outcome log id", value);
    }
    return value;
  }

  /** Runs a command; an unreachable server or a refusal becomes a `StoreError` saying what failed. */
  private async command<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof IrtRouterError) throw error;
      if (isUnavailable(error)) {
        throw new StoreError(
          `Could not ${what}: ${this.where} is unreachable (${(error as Error).message}). Retry once it is back ` +
            `(an append that timed out may have landed: readers skip repeated ids).`,
          { cause: error, path: "url" },
        );
      }
      throw refusal(error, storeKeys(this.prefix), what);
    }
  }

  private ensureOpen(): void {
    if (this.closed)
      throw new StoreError("This RedisRunOutcomeLog was closed; open a new one (RedisRunOutcomeLog.open).");
  }
}
