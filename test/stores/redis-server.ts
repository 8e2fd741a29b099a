/**
 * Starts a real redis-server for a test: on a free loopback port, in a temporary directory, with AOF on and
 * `appendfsync always` (so an acknowledged write survives SIGKILL). `redisAvailable()` says whether one can be started;
 * outside CI the Redis tests skip with a message when it cannot, in CI (CI=true) they fail.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The redis-server binary: $IRT_ROUTER_REDIS_SERVER, else on PATH, else Debian's /usr/bin. */
export function redisServerBinary(): string | undefined {
  const candidates = [
    process.env.IRT_ROUTER_REDIS_SERVER,
    "redis-server",
    "/usr/bin/redis-server",
    "/usr/local/bin/redis-server",
  ];
  for (const c of candidates) {
    if (!c) continue;
    if (c.includes("/") && !existsSync(c)) continue;
    if (spawnSync(c, ["--version"], { stdio: "ignore" }).status === 0) return c;
  }
  return undefined;
}

const binary = redisServerBinary();

/** Why the Redis tests cannot run here (undefined when they can). In CI a missing server is an error, not a skip. */
export function redisSkipReason(): string | undefined {
  if (binary || process.env.IRT_ROUTER_TEST_REDIS_URL) return undefined;
  const reason = "no redis-server found (install it: apt-get install redis-server, or set IRT_ROUTER_REDIS_SERVER)";
  if (process.env.CI === "true") throw new Error(`CI=true but the Redis tests cannot run: ${reason}.`);
  console.warn(`Skipping the Redis tests: ${reason}.`);
  return reason;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode})`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: "127.0.0.1" }, () => {
        socket.write("PING\r\n");
      });
      socket.once("data", (d) => {
        socket.destroy();
        resolve(/^(\+PONG|-NOAUTH)/.test(d.toString())); // up (a server with a password answers NOAUTH)
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`redis-server did not answer on port ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A running redis-server of a test. */
export class TestRedis {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly extraArgs: readonly string[] = [],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts a server; `extraArgs` are added to its command line (e.g. `["--requirepass", "secret"]`). */
  static async start(extraArgs: readonly string[] = []): Promise<TestRedis> {
    if (!binary) throw new Error("no redis-server binary");
    const server = new TestRedis(await freePort(), await mkdtemp(join(tmpdir(), "irt-redis-")), extraArgs);
    await server.launch();
    return server;
  }

  private async launch(): Promise<void> {
    const args = [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--dir",
      this.dir,
      "--save",
      "",
      "--appendonly",
      "yes",
    ];
    args.push("--appendfsync", "always", "--protected-mode", "no", "--daemonize", "no", "--loglevel", "warning");
    args.push(...this.extraArgs);
    this.child = spawn(binary!, args, { stdio: "ignore" });
    await waitForPort(this.port, this.child);
  }

  /** SIGKILL: no shutdown, no final fsync. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }

  /** Starts the server again on the same port and directory (it replays its AOF). */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** SIGKILL, then a start with its data gone: what a restart without persistence leaves (an empty server). */
  async wipeAndRestart(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A server for tests that do not stop or kill it: the one at $IRT_ROUTER_TEST_REDIS_URL (started by .ci/run) when set,
 * else one of their own. Use a {@link uniquePrefix} per test.
 */
export async function sharedRedis(): Promise<Pick<TestRedis, "url" | "stop">> {
  const url = process.env.IRT_ROUTER_TEST_REDIS_URL;
  if (url) return { url, stop: async () => undefined };
  return TestRedis.start();
}

let counter = 0;
/** A key prefix no other test uses. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${process.pid}-${Date.now()}-${counter++}`;
}
