/**
 * Connection failures name their cause (RedisConnectionError.reason) and how to fix it, on real servers: a wrong
 * password, a missing one, a TLS certificate this process does not trust, nothing listening, a server that never
 * answers. Before, the first three all read "Connection is closed".
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../../adapters/stores/redis.js";
import { RedisConnectionError, type RedisConnectionCause } from "../../src/errors.js";
import { redisSkipReason, TestRedis } from "./redis-server.js";

async function failure(url: string): Promise<RedisConnectionError> {
  const error = await RedisStore.open({ url, prefix: "connect", timeouts: { connectMs: 500, commandMs: 500 } }).then(
    (s) => s.close().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedisConnectionError);
  return error as RedisConnectionError;
}

function expectCause(error: RedisConnectionError, reason: RedisConnectionCause, fix: RegExp): void {
  expect(error.reason).toBe(reason);
  expect(error.details?.reason).toBe(reason);
  expect(error.path).toBe("url");
  expect(error.message).toMatch(fix);
  expect(error.message).not.toContain("s3cret-pass");
}

describe.skipIf(redisSkipReason() !== undefined)("Redis connection errors name the cause", () => {
  let auth: TestRedis;
  let tls: TestRedis;
  let tlsPort: number;
  let certDir: string;
  let silent: Server;
  let silentPort: number;
  beforeAll(async () => {
    auth = await TestRedis.start(["--requirepass", "s3cret-pass"]);
    certDir = await mkdtemp(join(tmpdir(), "irt-tls-"));
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"],
        ...["-keyout", join(certDir, "key.pem"), "-out", join(certDir, "cert.pem")],
      ],
      { stdio: "ignore" },
    );
    silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    silentPort = (silent.address() as { port: number }).port;
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    tlsPort = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    tls = await TestRedis.start([
      ...["--tls-port", String(tlsPort), "--tls-auth-clients", "no"],
      ...["--tls-cert-file", join(certDir, "cert.pem"), "--tls-key-file", join(certDir, "key.pem")],
    ]);
  }, 30_000);
  afterAll(async () => {
    await auth?.stop();
    await tls?.stop();
    silent?.close();
    if (certDir) await rm(certDir, { recursive: true, force: true });
  });

  it("a wrong password: auth, check the password", async () => {
    expectCause(await failure(`redis://:wrong-one@127.0.0.1:${auth.port}`), "auth", /password .*requirepass/);
  });

  it("no password for a server that needs one: password-missing, give it in the URL", async () => {
    expectCause(await failure(auth.url), "password-missing", /needs a password: give it in the URL/);
  });

  it("the right password connects", async () => {
    const store = await RedisStore.open({ url: `redis://:s3cret-pass@127.0.0.1:${auth.port}`, prefix: "connect" });
    await store.close();
  });

  it("a TLS certificate this process does not trust: tls-untrusted, give the CA", async () => {
    expectCause(await failure(`rediss://127.0.0.1:${tlsPort}`), "tls-untrusted", /NODE_EXTRA_CA_CERTS/);
  });

  it("nothing listening: refused; a server that never answers: timeout", async () => {
    expectCause(
      await failure(`redis://127.0.0.1:${silentPort + 0}`.replace(String(silentPort), "1")),
      "refused",
      /start redis-server/,
    );
    expectCause(await failure(`redis://127.0.0.1:${silentPort}`), "timeout", /no answer in time/);
  });
});
