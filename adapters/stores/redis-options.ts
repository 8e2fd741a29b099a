/** The options of {@link RedisStore} (validated with zod) and the types its appends return. */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { StoreWarning } from "../../src/errors.js";
import { storeOptionsSchema, type AppendResult } from "../../src/learning/store.js";
const isClient = (v: unknown): boolean =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as Redis).evalsha === "function" &&
  typeof (v as Redis).duplicate === "function";

/** A Redis URL option: `redis://[:password@]host:port[/db]` (or `rediss://` for TLS). */
export const redisUrlSchema = z.string().regex(/^rediss?:\/\//, "url must start with redis:// or rediss://");
/** An ioredis client option. */
export const redisClientSchema = z.custom<Redis>(isClient, "client must be an ioredis Redis instance");
/** A key prefix option (default "irt-router"). */
export const redisPrefixSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "prefix must be 1-100 of A-Z a-z 0-9 _ . : -")
  .default("irt-router");
/** Connecting (default 5000 ms). */
export const connectMsSchema = z.number().int().min(1).max(600_000).default(5000);
/** One command, after which the server counts as unreachable (default 2000 ms). */
export const commandMsSchema = z.number().int().min(1).max(600_000).default(2000);

export const redisStoreOptionsSchema = storeOptionsSchema
  .extend({
    /** `redis://[:password@]host:port[/db]` (or `rediss://` for TLS). Give this or `client`. */
    url: redisUrlSchema.optional(),
    /** An ioredis client to use (not closed by `close()`); the store opens one more connection (`duplicate()`) to follow. */
    client: redisClientSchema.optional(),
    /** Key prefix: routers sharing a prefix share learning state, decisions and budgets (default "irt-router"). */
    prefix: redisPrefixSchema,
    timeouts: z
      .strictObject({
        /** Connecting (default 5000 ms). */
        connectMs: connectMsSchema,
        /** One command, after which the server counts as unreachable (default 2000 ms). */
        commandMs: commandMsSchema,
        /** How long a routing read (a run's spend) waits before routing goes on with the local figure (default 50 ms). */
        routingMs: z.number().int().min(1).max(60_000).default(50),
        /** How long one blocking read of the stream waits for new events (default 1000 ms). */
        blockMs: z.number().int().min(1).max(60_000).default(1000),
      })
      .prefault({}),
    buffer: z
      .strictObject({
        /** Events kept in memory while Redis is unreachable; more are refused with FeedbackBufferFullError (default 10000). */
        maxEvents: z.number().int().min(0).max(10_000_000).default(10_000),
        /** How often a buffered batch is retried (default 500 ms). */
        retryMs: z.number().int().min(1).max(600_000).default(500),
      })
      .prefault({}),
    /** How long decisions and run spend are kept for feedback on any process (seconds, default 86400: one day). */
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 86_400)
      .default(86_400),
    /**
     * Receives what the store noticed and survived (Redis unreachable, back, the store wiped and republished, a
     * malformed stream entry skipped): the message and a typed {@link StoreWarning} (`kind`, `details`). Default:
     * console.warn of the message.
     */
    onWarning: z
      .custom<(message: string, warning: StoreWarning) => void>(
        (v) => typeof v === "function",
        "onWarning must be a function",
      )
      .optional(),
  })
  .refine((o) => (o.url === undefined) !== (o.client === undefined), {
    message: "give exactly one of url and client",
    path: ["url"],
  });

/** Options of {@link RedisStore.open}. */
export type RedisStoreOptions = z.input<typeof redisStoreOptionsSchema>;
export type RedisParsedOptions = z.output<typeof redisStoreOptionsSchema>;

/** What {@link RedisStore.append} adds to an `AppendResult`: events held in the local buffer, sent when Redis returns. */
export interface RedisAppendResult extends AppendResult {
  buffered?: number;
}
