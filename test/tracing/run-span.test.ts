/**
 * The run-level router's spans (`irt_router.run`, `irt_router.escalation`, `irt_router.run_attempt`) seen by an
 * in-memory OpenTelemetry exporter behind an AsyncLocalStorage context manager, as an app's SDK sets them up.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  context,
  trace,
  SpanStatusCode,
  type Context as OTelContext,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { InMemorySpanExporter, ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RunRouter } from "../../src/runs/index.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { openTelemetryApi } from "../../src/tracing/route-span.js";
import { ATTEMPT_SPAN, ESCALATION_SPAN, RUN_SPAN } from "../../src/tracing/run-span.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { AlsContextManager, inMemoryTracing } from "./fixtures/als-context.js";

let exporter: InMemorySpanExporter;
let provider: TracerProvider;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ exporter, provider, stop } = inMemoryTracing());
  await openTelemetryApi();
});
afterAll(() => stop());
beforeEach(() => exporter.reset());

const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
const task = { id: "fix-git", text: "Recover the lost commit in this repository." };
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe("run-level spans", () => {
  it("a decision is one irt_router.run span under the active span, with an event per candidate", async () => {
    const router = new RunRouter({ models, costWeight: 0.3 });
    const tracer = trace.getTracer("app");
    let parentId = "";
    let chosen = "";
    await tracer.startActiveSpan("app.handle", async (parent) => {
      parentId = parent.spanContext().spanId;
      chosen = router.route(task).chosen;
      parent.end();
    });
    const [run] = spans(RUN_SPAN);
    expect(spans(RUN_SPAN)).toHaveLength(1);
    expect(parentOf(run!)).toBe(parentId);
    expect(run!.attributes["irt_router.model"]).toBe(chosen);
    expect(run!.attributes["irt_router.policy"]).toBe("run(costWeight=0.3, attemptsLeft=1)");
    expect(run!.attributes["irt_router.expected_cost_usd"]).toBe(chosen === "big" ? 2 : 0.2);
    expect(typeof run!.attributes["irt_router.p"]).toBe("number");
    expect(run!.events.map((e) => e.attributes?.["irt_router.model"]).sort()).toEqual(["big", "small"]);
    // The task is user content: neither its id nor its text without the opt-ins.
    expect(run!.attributes["irt_router.task_id"]).toBeUndefined();
    expect(run!.attributes["irt_router.text"]).toBeUndefined();
  });

  it("a decision made before the API has loaded is recorded once it has, at the time it was made, under its parent", async () => {
    vi.resetModules(); // a fresh tracing module: the API not loaded yet
    const fresh = await import("../../src/runs/index.js");
    const router = new fresh.RunRouter({ models });
    let parentId = "";
    let before = 0;
    let after = 0;
    await trace.getTracer("app").startActiveSpan("app.handle", async (parent) => {
      parentId = parent.spanContext().spanId;
      before = Date.now();
      router.route(task);
      after = Date.now();
      expect(spans(RUN_SPAN)).toHaveLength(0); // not yet: the API is still loading
      parent.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [run] = spans(RUN_SPAN);
    expect(spans(RUN_SPAN)).toHaveLength(1);
    expect(parentOf(run!)).toBe(parentId);
    const ms = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    expect(ms(run!.startTime)).toBeGreaterThanOrEqual(before);
    expect(ms(run!.startTime)).toBeLessThanOrEqual(after);
    expect(ms(run!.endTime)).toBe(ms(run!.startTime));
  });

  it("an IrtRouter's run-level router follows its tracing option unless runs.tracing says otherwise", () => {
    const chat = () => new FakeListChatModel({ responses: ["ok"] });
    const make = (extra: Record<string, unknown>) =>
      new IrtRouter({
        models: { "gpt-4-1106-preview": { model: chat(), price: { inputPer1M: 10, outputPer1M: 30 } } },
        scorer: new ToyScorer(),
        logger: quietLogger(),
        ...extra,
      });
    make({ tracing: false, runs: { costWeight: 0.1 } }).routeRun(task);
    expect(spans(RUN_SPAN)).toHaveLength(0);
    make({ tracing: false, runs: { tracing: true } }).routeRun(task);
    expect(spans(RUN_SPAN)).toHaveLength(1);
    exporter.reset();
    make({ runs: { tracing: false } }).routeRun(task);
    expect(spans(RUN_SPAN)).toHaveLength(0);
  });

  it("task id and text only when opted in; nothing with tracing: false", () => {
    new RunRouter({ models, tracing: { includeRunId: true, includeText: true } }).route(task);
    const [run] = spans(RUN_SPAN);
    expect(run!.attributes["irt_router.task_id"]).toBe("fix-git");
    expect(run!.attributes["irt_router.text"]).toBe(task.text);
    exporter.reset();
    new RunRouter({ models, tracing: false }).route(task);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(() => new RunRouter({ models, tracing: { includeTask: true } as never })).toThrow(/options\.tracing/);
  });

  it("an escalation is one span with a child per attempt, and the agent's own spans nest under its attempt", async () => {
    const router = new RunRouter({ models, costWeight: 0.3 });
    const result = await router.escalate(
      task,
      async (modelId) => {
        // What an agent framework does inside the run: its own span under the active context.
        trace.getTracer("agent").startActiveSpan("agent.run", (s) => s.end());
        return modelId;
      },
      (modelId) => modelId === "big", // small fails, big passes
      { maxAttempts: 3 },
    );
    expect(result.attempts.map((a) => a.modelId)).toEqual(["small", "big"]);
    const [esc] = spans(ESCALATION_SPAN);
    const attempts = spans(ATTEMPT_SPAN).sort(
      (a, b) => Number(a.attributes["irt_router.attempt"]) - Number(b.attributes["irt_router.attempt"]),
    );
    expect(esc!.attributes).toMatchObject({
      "irt_router.passed": true,
      "irt_router.attempts": 2,
      "irt_router.cost_usd": 2.2,
      "irt_router.stop_reason": "passed",
      "irt_router.model": "big",
      "irt_router.max_attempts": 3,
    });
    expect(attempts.map((a) => [a.attributes["irt_router.model"], a.attributes["irt_router.passed"]])).toEqual([
      ["small", false],
      ["big", true],
    ]);
    for (const a of attempts) expect(parentOf(a)).toBe(esc!.spanContext().spanId);
    const agent = spans("agent.run");
    expect(agent).toHaveLength(2);
    expect(agent.map(parentOf)).toEqual(attempts.map((a) => a.spanContext().spanId));
    // The escalation's own decisions are its attempts, not decisions of their own.
    expect(spans(RUN_SPAN)).toHaveLength(0);
  });

  it("a tracer that throws (at the start of a span, or in its calls) never fails an escalation: one warning", async () => {
    const boom = () => {
      throw new Error("exporter misconfigured");
    };
    const throwingSpan = { setAttributes: boom, setStatus: boom, recordException: boom, end: boom } as unknown as Span;
    const broken = (startSpan: () => Span): TracerProvider => ({
      getTracer: () => ({ startSpan, startActiveSpan: boom }) as unknown as Tracer,
    });
    try {
      for (const tracerProvider of [broken(boom), broken(() => throwingSpan)]) {
        trace.disable();
        trace.setGlobalTracerProvider(tracerProvider);
        const warnings: string[] = [];
        const router = new RunRouter({ models, logger: { warn: (m) => void warnings.push(m) } });
        const runs: string[] = [];
        const result = await router.escalate(
          task,
          async (modelId) => (runs.push(modelId), modelId),
          (modelId) => modelId === "big",
          { maxAttempts: 3 },
        );
        expect(result.passed).toBe(true);
        expect(runs).toEqual(result.attempts.map((a) => a.modelId));
        expect(runs.length).toBeGreaterThan(0);
        await expect(
          router.escalate(
            task,
            async () => Promise.reject(new Error("sandbox died")),
            () => true,
          ),
        ).rejects.toThrow("sandbox died"); // the run's own error, not the tracer's
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(
          /run-level tracing failed at a irt_router\.(escalation|run_attempt) span \(exporter misconfigured\)/,
        );
        // An IrtRouter's run-level router warns through the router's logger (unless runs.logger is given).
        const routerWarnings: string[] = [];
        const runsWarnings: string[] = [];
        const chat = new FakeListChatModel({ responses: ["ok"] });
        const irt = (runsLogger?: { warn: (m: string) => void }) =>
          new IrtRouter({
            models: { "gpt-4-1106-preview": { model: chat, price: { inputPer1M: 10, outputPer1M: 30 } } },
            scorer: new ToyScorer(),
            logger: { warn: (m) => void routerWarnings.push(m) },
            ...(runsLogger && { runs: { logger: runsLogger } }),
          });
        await irt().runTask(
          task,
          async (m) => m,
          () => true,
        );
        expect(routerWarnings).toHaveLength(1);
        await irt({ warn: (m) => void runsWarnings.push(m) }).runTask(
          task,
          async (m) => m,
          () => true,
        );
        expect([routerWarnings.length, runsWarnings.length]).toEqual([1, 1]);
      }
    } finally {
      trace.disable();
      trace.setGlobalTracerProvider(provider);
    }
  });

  it("a context manager that throws after the body ran never fails the escalation: its run goes on, one warning", async () => {
    class ThrowsAfter extends AlsContextManager {
      override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
        ctx: OTelContext,
        fn: F,
        thisArg?: ThisParameterType<F>,
        ...args: A
      ): ReturnType<F> {
        super.with(ctx, fn, thisArg, ...args);
        throw new Error("context restore failed");
      }
    }
    context.disable();
    context.setGlobalContextManager(new ThrowsAfter());
    try {
      const warnings: string[] = [];
      const router = new RunRouter({ models, logger: { warn: (m) => void warnings.push(m) } });
      let finished = 0;
      const result = await router.escalate(
        task,
        async (m) => {
          await new Promise((r) => setTimeout(r, 20));
          finished++;
          return m;
        },
        () => true,
      );
      expect([result.passed, finished]).toEqual([true, 1]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/context restore failed/);
    } finally {
      context.disable();
      context.setGlobalContextManager(new AlsContextManager());
    }
  });

  it("a run that throws ends its attempt and the escalation with an error status", async () => {
    const router = new RunRouter({ models });
    await expect(
      router.escalate(
        task,
        async () => {
          throw new Error("sandbox died");
        },
        () => true,
      ),
    ).rejects.toThrow("sandbox died");
    const [esc] = spans(ESCALATION_SPAN);
    const [attempt] = spans(ATTEMPT_SPAN);
    for (const s of [esc!, attempt!]) {
      expect(s.status).toEqual({ code: SpanStatusCode.ERROR, message: "sandbox died" });
      expect(s.events.some((e) => e.name === "exception")).toBe(true);
    }
  });

  it("an abort, in flight or before the first attempt, ends the spans with an error status as a throw does", async () => {
    const router = new RunRouter({ models });
    const controller = new AbortController();
    const reason = new Error("cancelled by the user");
    const hangs = () => (queueMicrotask(() => controller.abort(reason)), new Promise<string>(() => undefined));
    await expect(router.escalate(task, hangs, () => true, { signal: controller.signal })).rejects.toBe(reason);
    const [esc] = spans(ESCALATION_SPAN);
    const [attempt] = spans(ATTEMPT_SPAN);
    expect(parentOf(attempt!)).toBe(esc!.spanContext().spanId);
    for (const s of [esc!, attempt!]) {
      expect(s.status).toEqual({ code: SpanStatusCode.ERROR, message: "cancelled by the user" });
      expect(s.events.some((e) => e.name === "exception")).toBe(true);
    }
    exporter.reset();
    // Already aborted: the escalation's span says so, and no attempt started.
    await expect(
      router.escalate(
        task,
        async (m) => m,
        () => true,
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(spans(ESCALATION_SPAN).map((s) => s.status)).toEqual([
      { code: SpanStatusCode.ERROR, message: "cancelled by the user" },
    ]);
    expect(spans(ATTEMPT_SPAN)).toHaveLength(0);
  });

  it("an IrtRouter's routeRun is traced as the router's tracing option says", () => {
    const chat = () => new FakeListChatModel({ responses: ["ok"] });
    const priced = (tracing?: boolean) =>
      new IrtRouter({
        models: {
          "gpt-4-1106-preview": { model: chat(), price: { inputPer1M: 10, outputPer1M: 30 } },
          "mistral-7b-chat": { model: chat(), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
        },
        scorer: new ToyScorer(),
        logger: quietLogger(),
        ...(tracing !== undefined && { tracing }),
      });
    priced().routeRun(task);
    expect(spans(RUN_SPAN)).toHaveLength(1);
    exporter.reset();
    priced(false).routeRun(task);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("routed calls made inside an attempt's run have their irt_router.route spans under the attempt", async () => {
    const r = new IrtRouter({
      models: {
        "gpt-4-1106-preview": {
          model: new FakeListChatModel({ responses: ["ok"] }),
          price: { inputPer1M: 10, outputPer1M: 30 },
        },
      },
      scorer: new ToyScorer(),
      logger: quietLogger(),
    });
    await r.runTask(
      task,
      () => r.invoke("What changed in the last commit?"),
      () => true,
    );
    const [attempt] = spans(ATTEMPT_SPAN);
    const routed = spans("irt_router.route");
    expect(routed).toHaveLength(1);
    expect(parentOf(routed[0]!)).toBe(attempt!.spanContext().spanId);
  });
});
