import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { redisSkipReason, TestRedis } from "./stores/redis-server.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const tsx = join(root, "node_modules", ".bin", "tsx");

/** Runs an example as a user would (`npx tsx examples/<name>.ts`), offline, and returns its stdout. */
async function example(name: string, env: Record<string, string | undefined> = {}): Promise<string> {
  const { stdout } = await run(tsx, [join("examples", `${name}.ts`)], {
    cwd: root,
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return stdout;
}

describe("examples", () => {
  it("quickstart: an agent whose steps are routed, tools executed, feedback recorded", async () => {
    const out = await example("quickstart");
    expect(out).toMatch(/policy: cost-aware\(lambda=20\)/);
    const steps = out.split("\n").filter((l) => l.startsWith("step -> "));
    expect(steps.length).toBe(2); // tool call, then the answer
    expect(out).toMatch(/answer: \[(gpt-4|mixtral|mistral)\] It is 21°C and sunny in Paris\./);
    expect(out).toMatch(/feedback: 2 event\(s\) recorded for run quickstart-run-1/);
  });

  it("ai-sdk: a generateText tool loop routed per step over HTTP by @ai-sdk/openai, with a fallback and cache reads", async () => {
    const out = await example("ai-sdk");
    const steps = out.split("\n").filter((l) => l.startsWith("step "));
    expect(steps).toHaveLength(3); // two tool calls, then the answer
    expect(steps[0]).toMatch(/^step 0 -> gpt-4o \(fell back from gpt-4o-mini\)/); // the server's first answer is a 503
    expect(out).toMatch(/step 2 -> (\S+): .*\(cache read [1-9]\d* of \d+ tokens\)/);
    expect(out).toMatch(/http requests: gpt-4o-mini, gpt-4o, /);
    expect(out).toContain("answer: It is 21°C in Paris and 19°C in Lyon.");
    expect(out).toMatch(/feedback: 3 event\(s\) recorded for run ai-sdk-run-1/);
  });

  it("openai-agents: a Runner run routed per turn over HTTP, a conversation pinned to the model that holds it", async () => {
    const out = await example("openai-agents");
    expect(out).toMatch(/answer: \[gpt-4o-mini\] It is 21°C and sunny in Rome\./);
    expect(out).toMatch(/answer: \[gpt-4o-mini\] It is 21°C and sunny in Paris\./); // pinned: gpt-4o is back
    expect(out).toMatch(/answer: \[gpt-4o\] It is 21°C and sunny in Oslo\./); // no server-side state: routed
    expect(out).toMatch(/turn -> gpt-4o-mini after gpt-4o failed/);
    expect(out).toMatch(/turn -> gpt-4o-mini \(pinned; the router's choice: gpt-4o\)/);
  });

  it("cost-aware: one row per policy and a budget trail", async () => {
    const out = await example("cost-aware");
    for (const name of [
      "quality",
      "cost-aware(lambda=20)",
      "cost-aware(valuePerSuccessUsd=0.01)",
      "cheapest-above(tau=0.7)",
    ]) {
      expect(out).toContain(`| ${name} |`);
    }
    const trail = out.match(/10 hard calls in one run: (.*)/)?.[1]?.split(" -> ");
    expect(trail).toHaveLength(10);
  });

  it.skipIf(redisSkipReason() !== undefined)(
    "replicas: feedback given on one router changes the other's routing through Redis",
    async () => {
      const server = await TestRedis.start();
      try {
        const out = await example("replicas", { REDIS_URL: server.url });
        expect(out).toMatch(/A routed run replicas-run-1 to (\S+) \(p=/);
        expect(out).toMatch(/B recorded 2 event\(s\) for a run it never routed/);
        const before = Number(out.match(/A routed run replicas-run-1 to \S+ \(p=([\d.]+)\)/)![1]);
        const after = Number(out.match(/A now gives \S+ p=([\d.]+)/)![1]);
        expect(after).toBeLessThan(before);
      } finally {
        await server.stop();
      }
    },
  );

  it("run-replicas: a replica learns another's escalation outcomes through a file log, and routes on them", async () => {
    const out = await example("run-replicas");
    expect(out).toMatch(/^B before: small-model/m);
    expect(out.match(/^A migrate-\d: small-model failed, big-model passed$/gm)).toHaveLength(6);
    expect(out).toContain("A shared 12 run outcome(s); B learned 12");
    expect(out).toMatch(/^B after: big-model/m);
  });

  it("replicas: exits 0 with a clear message when no Redis is reachable", async () => {
    const out = await example("replicas", { REDIS_URL: "redis://127.0.0.1:1" });
    expect(out).toMatch(/no Redis reachable at redis:\/\/127.0.0.1:1/);
  });

  it("providers: exits 0 with a clear message when no key is set", async () => {
    const out = await example("providers", { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" });
    expect(out).toMatch(/no provider is configured/);
    expect(out).toMatch(/OPENAI_API_KEY/);
    expect(out).toMatch(/npm install @langchain\/openai/);
  });
});
