/**
 * The `irt_router.route` spans seen by an in-memory OpenTelemetry exporter (the app's SDK, here sdk-trace-base), with
 * a context manager on AsyncLocalStorage so that spans nest as under a framework's own; and none in a process where
 * `@opentelemetry/api` cannot be imported.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { trace, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { IrtRouter, irtRouterMiddleware, routeDecisionOf } from "../../src/langchain/index.js";
import { ROUTE_SPAN } from "../../src/tracing/route-span.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { inMemoryTracing } from "./fixtures/als-context.js";

let exporter: InMemorySpanExporter;
let stop: () => Promise<void>;
beforeAll(() => ({ exporter, stop } = inMemoryTracing()));
afterAll(() => stop());
beforeEach(() => exporter.reset());

const routeSpans = () => exporter.getFinishedSpans().filter((s) => s.name === ROUTE_SPAN);
const failing = () => fakeModel().alwaysThrow(new Error("503 overloaded"));
const router = (models: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  new IrtRouter({ models: models as never, scorer: new ToyScorer(), logger: quietLogger(), ...extra });

describe("irt_router.route spans", () => {
  it("one per routed call (invoke, stream, batch), with the decision's attributes and an event per candidate", async () => {
    const r = router({
      "gpt-4-1106-preview": new FakeListChatModel({ responses: ["four"] }),
      "mistral-7b-chat": new FakeListChatModel({ responses: ["4"] }),
    });
    const reply = await r.invoke("What is 2+2?");
    for await (const _ of await r.stream("And 3+3?")) void _;
    await r.batch(["a", "b"]);
    const spans = routeSpans();
    expect(spans).toHaveLength(4);
    const decision = routeDecisionOf(reply)!;
    const chosen = decision.candidates.find((c) => c.id === decision.chosen)!;
    const first = spans[0]!;
    expect(first.kind).toBe(SpanKind.INTERNAL);
    expect(first.attributes).toEqual({
      "irt_router.model": decision.chosen,
      "irt_router.policy": "quality",
      "irt_router.reason": "policy",
      "irt_router.p": chosen.p,
      "irt_router.expected_cost_usd": chosen.expectedCost,
      "irt_router.realized_cost_usd": expect.any(Number),
    });
    expect(first.events.map((e) => [e.name, e.attributes])).toEqual(
      decision.candidates.map((c) => [
        "irt_router.candidate",
        { "irt_router.model": c.id, "irt_router.p": c.p, "irt_router.expected_cost_usd": c.expectedCost },
      ]),
    );
    for (const s of spans) {
      expect(Object.keys(s.attributes).filter((k) => k.startsWith("gen_ai."))).toEqual([]);
      expect(s.status.code).not.toBe(SpanStatusCode.ERROR);
    }
  });

  it("nests under the active span (a framework's own), and the fallback is named", async () => {
    const r = router({
      "gpt-4-1106-preview": failing(),
      "mistral-7b-chat": new FakeListChatModel({ responses: ["ok"] }),
    });
    const tracer = trace.getTracer("framework");
    const parentId = await tracer.startActiveSpan("chat", async (span) => {
      await r.invoke("hi");
      span.end();
      return span.spanContext().spanId;
    });
    const [route] = routeSpans();
    expect(route!.parentSpanContext?.spanId).toBe(parentId);
    expect(route!.attributes).toMatchObject({
      "irt_router.model": "mistral-7b-chat",
      "irt_router.fallback_from": "gpt-4-1106-preview",
      "irt_router.reason": "fallback",
    });
  });

  it("a call every model failed is one span with an error status", async () => {
    const r = router({ "gpt-4-1106-preview": failing(), "mistral-7b-chat": failing() });
    await expect(r.invoke("hi")).rejects.toThrow(/503/);
    const [route] = routeSpans();
    expect(routeSpans()).toHaveLength(1);
    expect(route!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringMatching(/503/) });
  });

  it("run ids and user text only when opted in; none at all with tracing: false", async () => {
    const models = { "mistral-7b-chat": new FakeListChatModel({ responses: ["ok"] }) };
    const config = { metadata: { irtRouterRunId: "run-42" } };
    await router(models).invoke("my secret question", config);
    const plain = JSON.stringify(routeSpans()[0]!.attributes);
    expect(plain).not.toContain("run-42");
    expect(plain).not.toContain("secret");
    exporter.reset();
    await router(models, { tracing: { includeRunId: true, includeText: true } }).invoke("my secret question", config);
    expect(routeSpans()[0]!.attributes).toMatchObject({
      "irt_router.run_id": "run-42",
      "irt_router.text": expect.stringContaining("my secret question"),
    });
    exporter.reset();
    await router(models, { tracing: false }).invoke("hi");
    expect(routeSpans()).toEqual([]);
  });

  it("one span per step of a createAgent run routed by the middleware, under the agent's span", async () => {
    const r = router({ "mistral-7b-chat": new FakeListChatModel({ responses: ["done"] }) });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["x"] }),
      tools: [],
      middleware: [irtRouterMiddleware({ router: r })],
    });
    const tracer = trace.getTracer("framework");
    const parentId = await tracer.startActiveSpan("invoke_agent", async (span) => {
      await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
      span.end();
      return span.spanContext().spanId;
    });
    const spans = routeSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.parentSpanContext?.spanId).toBe(parentId);
  });
});

describe("without @opentelemetry/api", () => {
  it("routes calls and runs as usual: the import is tried once, fails as a missing package, nothing is recorded", () => {
    const fixtures = join(import.meta.dirname, "fixtures");
    const log = join(mkdtempSync(join(tmpdir(), "no-otel-")), "imports.log");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--import", "./no-otel.mjs", "route-untraced.ts"], {
      cwd: fixtures,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, NO_OTEL_LOG: log },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toEqual({
      api: "absent",
      reply: "ok",
      chosen: "mistral-7b-chat",
      runChoice: "small",
      escalated: ["small", "big"],
      blockedImports: ["@opentelemetry/api"],
      warnings: [],
    });
  });
});

describe("with an @opentelemetry/api install that throws when loaded", () => {
  it("routes calls and runs as usual, untraced, and says so once per router", () => {
    const fixtures = join(import.meta.dirname, "fixtures");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--import", "./broken-otel.mjs", "route-untraced.ts"], {
      cwd: fixtures,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { warnings: string[] };
    expect(out).toMatchObject({
      api: "broken",
      reply: "ok",
      chosen: "mistral-7b-chat",
      runChoice: "small",
      escalated: ["small", "big"],
    });
    expect(out.warnings).toEqual([
      "irt-router: tracing is off for this call (Error: otel api: broken install); routing goes on.",
      "irt-router: run-level tracing failed at a irt_router.escalation span (otel api: broken install); runs go on, untraced there.",
    ]);
  });
});
