/**
 * Loading the optional `ioredis` client, connecting it, and telling an unreachable server (buffer and retry) from a
 * real error (report it).
 */
import type { Redis, RedisOptions } from "ioredis";
import { IrtRouterError, RedisConnectionError, StoreError, type RedisConnectionCause } from "../../src/errors.js";

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
  // The first failure seen while connecting names the cause (later ones read "Connection is closed").
  let first: unknown;
  client.on("error", (error: unknown) => (first ??= error)); // later errors: reported through the failing commands
  try {
    await withDeadline(client.connect(), options.connectMs + (options.commandMs ?? options.connectMs));
  } catch (error) {
    client.disconnect();
    throw connectionError(url, first ?? error, error);
  }
  return client;
}

/** Rejects when `promise` has not settled within `ms` (a server that accepts the connection but never answers). */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: "ETIMEDOUT" })), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const CAUSES: { reason: RedisConnectionCause; test: RegExp; fix: string }[] = [
  {
    reason: "auth",
    test: /WRONGPASS|invalid password|invalid username-password|without any password configured/i,
    fix: "the password (or user) in the URL is not the server's: check redis://user:password@host:port against its requirepass/ACL (a server without a password takes none)",
  },
  {
    reason: "password-missing",
    test: /NOAUTH|Authentication required/i,
    fix: "the server needs a password: give it in the URL (redis://:password@host:port)",
  },
  {
    reason: "tls-untrusted",
    test: /self[- ]signed|unable to (verify|get local issuer)|CERT_|certificate/i,
    fix: "the server's TLS certificate is not trusted by this process: give the CA with NODE_EXTRA_CA_CERTS=/path/ca.pem, or pass an ioredis client built with tls: { ca }",
  },
  {
    reason: "tls",
    test: /EPROTO|wrong version number|SSL|TLS|ECONNRESET/i,
    fix: "the TLS handshake failed: use rediss:// only for a server with TLS on (tls-port), redis:// otherwise",
  },
  {
    reason: "refused",
    test: /ECONNREFUSED/,
    fix: "nothing listens there: start redis-server, or fix the host and port in the URL",
  },
  {
    reason: "timeout",
    test: /ETIMEDOUT|timed? ?out|no answer within/i,
    fix: "no answer in time: check the host is reachable (firewall, network) and the server not overloaded, or raise timeouts.connectMs",
  },
  {
    reason: "not-found",
    test: /ENOTFOUND|EAI_AGAIN/,
    fix: "the host name does not resolve: fix the host in the URL",
  },
];

/** A RedisConnectionError naming why connecting to `url` failed and how to fix it. */
export function connectionError(url: string, error: unknown, final: unknown = error): RedisConnectionError {
  const e = error as { message?: unknown; code?: unknown } | null;
  const text = `${String(e?.code ?? "")} ${String(e?.message ?? error)}`;
  const tls = url.startsWith("rediss:");
  const found = CAUSES.find((c) => (tls || !c.reason.startsWith("tls")) && c.test.test(text));
  const said = String(e?.message ?? error).replace(/\.$/, "");
  return new RedisConnectionError(
    found?.reason ?? "unknown",
    `Cannot connect to Redis at ${redactUrl(url)}: ${said}. ${found ? `Fix: ${found.fix}.` : "Is the server running?"}`,
    { path: "url", cause: final === error ? error : new AggregateError([error, final], said) },
  );
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
  if (error instanceof IrtRouterError) return false;
  const e = error as { name?: unknown; message?: unknown } | null;
  const message = String(e?.message ?? "");
  if (e?.name === "ReplyError") return /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)/.test(message);
  return true;
}
