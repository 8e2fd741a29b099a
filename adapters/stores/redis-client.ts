/**
 * Loading the optional `ioredis` client, connecting it, and telling an unreachable server (buffer and retry) from a
 * real error (report it).
 */
import type { Redis, RedisOptions } from "ioredis";
import { StoreError } from "../../src/errors.js";

/** The `ioredis` version range this library is tested with (its optional peer dependency). */
export const IOREDIS_RANGE = "^6.1.0";

/** Imports `ioredis`, or throws a StoreError saying how to install it. */
export async function loadIoredis(): Promise<{ Redis: typeof Redis }> {
  try {
    const { Redis } = await import("ioredis");
    return { Redis };
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new StoreError(
        `RedisStore needs the Redis client "ioredis", an optional peer dependency of irt-router that is not installed. ` +
          `Install it: npm install ioredis@${IOREDIS_RANGE}`,
        { path: "ioredis", cause: error },
      );
    }
    throw error;
  }
}

/** Opens a connection to `url` and waits until it is ready (or fails within `connectMs`). */
export async function connect(
  url: string,
  options: { connectMs: number; commandMs?: number; name: string },
): Promise<Redis> {
  const { Redis } = await loadIoredis();
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: options.connectMs,
    // Commands fail at once while disconnected (the store buffers events itself) instead of queueing unbounded.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectionName: options.name,
    ...(options.commandMs !== undefined ? { commandTimeout: options.commandMs } : {}),
    retryStrategy: (times) => Math.min(50 * times, 1000),
  };
  const client = new Redis(url, redisOptions);
  client.on("error", () => undefined); // reported through the failing commands; ioredis reconnects by itself
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new StoreError(
      `Cannot connect to Redis at ${redactUrl(url)}: ${(error as Error).message.replace(/\.$/, "")}. Is the server running?`,
      {
        path: "url",
        cause: error,
      },
    );
  }
  return client;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

/**
 * Whether an error means the server could not be reached or did not answer in time (so the command may be retried),
 * rather than an answer refusing the command. A server loading its data after a restart counts as unreachable.
 */
export function isUnavailable(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | null;
  const message = String(e?.message ?? "");
  if (e?.name === "ReplyError") return /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)/.test(message);
  return true;
}
