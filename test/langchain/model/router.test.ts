import { describe, expect, it, vi } from "vitest";
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { InMemoryCache } from "@langchain/core/caches";
import { RunCollectorCallbackHandler } from "@langchain/core/tracers/run_collector";
import { FakeChatModel, FakeListChatModel } from "@langchain/core/utils/testing";
import { fakeModel } from "@langchain/core/testing";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { z } from "zod";
import { IrtRouter, NoCandidatesError, type RouteDecision } from "../../../src/langchain/index.js";
import { ValidationError } from "../../../src/errors.js";
import { SlowModel, ToolCallingFake, ToyEncoder, ToyScorer, quietLogger } from "../helpers.js";
import "../../../index.js"; // the package root: registers the default (pretrained) scorer loader for "IrtRouter defaults"

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: "get_weather",
  description: "Weather of a city",
  schema: z.object({ city: z.string() }),
});

/** Answers "ok" and reports `outputTokens` output tokens in its usage metadata. */
class TerseModel extends BaseChatModel {
  constructor(private readonly outputTokens: number) {
    super({});
  }
  _llmType() {
    return "terse";
  }
  async _generate(): Promise<ChatResult> {
    const message = new AIMessage({
      content: "ok",
      usage_metadata: { input_tokens: 20, output_tokens: this.outputTokens, total_tokens: 20 + this.outputTokens },
    });
    return { generations: [{ message, text: "ok" }] };
  }
}

function withProfile<T extends BaseChatModel>(model: T, profile: Record<string, unknown>): T {
  Object.defineProperty(model, "profile", { value: profile, configurable: true });
  return model;
}

function decisionOf(message: { response_metadata: Record<string, unknown> }): RouteDecision {
  return message.response_metadata.irtRouter as RouteDecision;
}

class Recorder extends BaseCallbackHandler {
  name = "recorder";
  starts: { name: string; tags?: string[]; metadata?: Record<string, unknown>; runName?: string }[] = [];
  tokens = 0;
  override async handleChatModelStart(
    llm: { id: string[] },
    _m: unknown,
    _runId: string,
    _parent?: string,
    _extra?: unknown,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ) {
    this.starts.push({ name: llm.id.at(-1)!, tags, metadata, runName });
  }
  override async handleLLMNewToken() {
    this.tokens++;
  }
}

describe("IrtRouter options", () => {
  it("rejects bad options naming the field", () => {
    const model = new FakeListChatModel({ responses: ["x"] });
    expect(() => new IrtRouter({ models: {} })).toThrow(ValidationError);
    try {
      new IrtRouter({ models: { a: { model, price: { inputPer1M: -1, outputPer1M: 1 } } }, scorer: new ToyScorer() });
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).path).toBe("options.models.a.price.inputPer1M");
    }
    expect(() => new IrtRouter({ models: { a: { model: {} as never } } })).toThrow(/chat model/);
    expect(() => new IrtRouter({ models: { a: model }, maxAttempts: 0 })).toThrow(/options.maxAttempts/);
    expect(() => new IrtRouter({ models: { a: model }, policy: { kind: "cheapest-above", tau: 2 } })).toThrow(
      /options.policy.tau/,
    );
    expect(() => new IrtRouter({ models: { a: model }, tyop: 1 } as never)).toThrow(/tyop/);
  });
});

describe("IrtRouter routing", () => {
  it("routes by the policy and records the decision on the response", async () => {
    const strong = new FakeListChatModel({ responses: ["strong answer"] });
    const cheap = new FakeListChatModel({ responses: ["cheap answer"] });
    const quality = new IrtRouter({ models: { "gpt-4": strong, mistral: cheap }, scorer: new ToyScorer() });
    const reply = await quality.invoke("What is 17 * 23?");
    expect(reply.content).toBe("strong answer");
    const d = decisionOf(reply);
    expect(d.chosen).toBe("gpt-4");
    expect(d.policy).toBe("quality");
    expect(d.candidates.map((c) => c.id)).toEqual(["gpt-4", "mistral"]);
    for (const c of d.candidates) {
      expect(c.p).toBeGreaterThan(0);
      expect(c.p).toBeLessThan(1);
      expect(c.expectedCost).toBeGreaterThan(0);
      expect(c.utility).toBe(c.p);
    }
    expect(d.attempts).toEqual([{ id: "gpt-4", ok: true, ms: expect.any(Number) }]);
    expect(d.encodeMs).toBeGreaterThanOrEqual(0);
    expect(d.scoreMs).toBeGreaterThanOrEqual(0);
    expect(typeof d.decisionId).toBe("string");

    const thrifty = new IrtRouter({
      models: { "gpt-4": strong, mistral: cheap },
      scorer: new ToyScorer(),
      policy: { kind: "cost-aware", lambda: 1e4 },
    });
    const cheapReply = await thrifty.invoke("What is 17 * 23?");
    expect(cheapReply.content).toBe("cheap answer");
    expect(decisionOf(cheapReply).chosen).toBe("mistral");
    expect(decisionOf(cheapReply).policy).toBe("cost-aware(lambda=1e+4)".replace("1e+4", "10000"));
  });

  it("decide() gives the decision without calling any model", async () => {
    const child = fakeModel();
    const router = new IrtRouter({ models: { "gpt-4": child, mistral: fakeModel() }, scorer: new ToyScorer() });
    const d = await router.decide("What is 5 * 5?");
    expect(d.chosen).toBe("gpt-4");
    expect(d.attempts).toEqual([]);
    expect(child.callCount).toBe(0);
    await expect(router.feedback(d.decisionId, true)).rejects.toThrow(/no answered call/);
  });

  it("scores an unknown model at the population-average ability and warns once", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({
      models: {
        "my-finetune": new FakeListChatModel({ responses: ["ok"] }),
        mistral: new FakeListChatModel({ responses: ["m"] }),
      },
      scorer: new ToyScorer(),
      logger,
    });
    const a = await router.invoke("hello there");
    await router.invoke("hello again");
    expect(logger.messages.filter((m) => m.includes('"my-finetune" is not in the model catalog')).length).toBe(1);
    expect(logger.messages.filter((m) => m.includes('"my-finetune" has no price')).length).toBe(1);
    const scorer = new ToyScorer();
    const item = await scorer.itemParams("hello there");
    const mean = [0, 1].map((k) => scorer.models.reduce((s, m) => s + m.ability[k]!, 0) / 3);
    const expected = 1 / (1 + Math.exp(-(item.alpha[0]! * mean[0]! + item.alpha[1]! * mean[1]! - item.beta)));
    const unknown = decisionOf(a).candidates.find((c) => c.id === "my-finetune")!;
    expect(unknown.p).toBeCloseTo(expected, 6);
    expect(unknown.expectedCost).toBe(0);
  });

  it("matches the scorer's own p when the scorer has a logit temperature", async () => {
    class Tempered extends ToyScorer {
      readonly temperature = 2;
      override async predict(text: string | Float32Array, ids?: readonly string[]) {
        const { alpha, beta } = await this.itemParams(text);
        return (ids ?? []).map((id) => {
          const t = this.ability(id);
          return { model: id, p: 1 / (1 + Math.exp(-(alpha[0]! * t[0]! + alpha[1]! * t[1]! - beta) / 2)) };
        });
      }
    }
    const scorer = new Tempered();
    const router = new IrtRouter({ models: { "gpt-4": new FakeListChatModel({ responses: ["x"] }) }, scorer });
    const d = decisionOf(await router.invoke("What is 3 * 4?"));
    const [expected] = await scorer.predict("What is 3 * 4?", ["gpt-4"]);
    expect(d.candidates[0]!.p).toBeCloseTo(expected!.p, 6);
    const [event] = await router.feedback(d.decisionId, true);
    const raw = await scorer.itemParams("What is 3 * 4?");
    expect(event!.beta).toBeCloseTo(raw.beta / 2, 6);
    expect(event!.alpha[0]).toBeCloseTo(raw.alpha[0]! / 2, 6);
  });

  it("caches item parameters per routing text", async () => {
    const encoder = new ToyEncoder();
    const scorer = new ToyScorer();
    const router = new IrtRouter({ models: { mistral: new FakeListChatModel({ responses: ["m"] }) }, scorer, encoder });
    const first = decisionOf(await router.invoke("same question"));
    const second = decisionOf(await router.invoke("same question"));
    expect(first.cacheHit).toBe(false);
    expect(second.cacheHit).toBe(true);
    expect(second.encodeMs).toBe(0);
    expect(encoder.calls).toBe(1);
    expect(scorer.itemParamsCalls).toBe(1);
    await router.invoke("another question");
    expect(encoder.calls).toBe(2);
  });

  it("says which option is wrong when a scorer factory does not give a scorer", async () => {
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["x"] }) },
      scorer: async () => ({ models: "gpt-4" }) as never,
    });
    await expect(router.invoke("hi")).rejects.toMatchObject({ code: "INVALID_ARGUMENT", path: "options.scorer" });
    await expect(router.invoke("hi")).rejects.toThrow(/missing models \(array\), abilityDim/);
  });

  it("refuses an encoder the scorer was not built with", async () => {
    const encoder = Object.assign(new ToyEncoder(), { id: "other-encoder" });
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["m"] }) },
      scorer: new ToyScorer(),
      encoder,
    });
    await expect(router.invoke("x")).rejects.toMatchObject({ code: "ENCODER_MISMATCH" });
  });

  it("passes the whole call options to the child and tags its run with the decision", async () => {
    const child = fakeModel().respond(new AIMessage("done"));
    const router = new IrtRouter({ models: { "gpt-4": child }, scorer: new ToyScorer() });
    const recorder = new Recorder();
    const controller = new AbortController();
    const reply = await router.invoke([new SystemMessage("be brief"), new HumanMessage("hi")], {
      callbacks: [recorder],
      tags: ["mine"],
      metadata: { user: "u1" },
      runName: "my-step",
      stop: ["STOP"],
      timeout: 10_000,
      signal: controller.signal,
      configurable: { thread_id: "t1" },
    });
    expect(reply.content).toBe("done");
    expect(child.callCount).toBe(1);
    expect(child.calls[0]!.options.stop).toEqual(["STOP"]);
    expect(child.calls[0]!.options.signal).toBeDefined();
    // the router's own chat-model run (named by runName), with the child's run nested under it
    expect(recorder.starts.map((s) => s.name)).toEqual(["IrtRouter", "FakeBuiltModel"]);
    expect(recorder.starts[0]!.runName).toBe("my-step");
    const start = recorder.starts[1]!;
    expect(start.tags).toEqual(expect.arrayContaining(["mine", "irt-router", "irt-router:gpt-4"]));
    expect(start.metadata?.user).toBe("u1");
    expect((start.metadata?.irtRouter as RouteDecision).chosen).toBe("gpt-4");
    expect((start.metadata?.irtRouter as RouteDecision).decisionId).toBe(decisionOf(reply).decisionId);
    expect(router.getLsParams({} as never).ls_provider).toBe("irt-router"); // options that carry no choice: the router itself
  });

  it("hands configurable, timeout and the rest of the config to the child, and refuses a pre-aborted call", async () => {
    const child = fakeModel().respond(new AIMessage("ok"));
    const spy = vi.spyOn(child, "invoke");
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    await router.invoke("hi", {
      configurable: { thread_id: "t9", user: "u" },
      timeout: 5000,
      runName: "r",
      runId: "00000000-0000-4000-8000-000000000001",
    });
    const config = spy.mock.calls[0]![1] as Record<string, any>;
    expect(config.configurable).toEqual({ thread_id: "t9", user: "u" });
    expect(config.timeout).toBe(5000);
    // runName and runId name the router's own run; the child's run is nested under it with an id of its own
    expect(config.runName).toBeUndefined();
    expect(config.runId).toBeUndefined();
    const controller = new AbortController();
    controller.abort();
    await expect(router.invoke("hi", { signal: controller.signal })).rejects.toThrow();
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("the budget policy sees each run's spend and moves to cheaper models within a run", async () => {
    const router = new IrtRouter({
      models: {
        "gpt-4": new FakeListChatModel({ responses: ["a"] }),
        mistral: new FakeListChatModel({ responses: ["b"] }),
      },
      scorer: new ToyScorer(),
      policy: { kind: "budget", maxUsdPerRun: 0.02 },
      expectedOutputTokens: 256,
    });
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await router.invoke("What is 12 * 12?", { metadata: { irtRouterRunId: "run-a" } });
      chosen.push(decisionOf(r).chosen);
    }
    expect(chosen[0]).toBe("gpt-4");
    expect(chosen.at(-1)).toBe("mistral");
    // A new run starts with a fresh budget.
    const other = await router.invoke("What is 12 * 12?", { metadata: { irtRouterRunId: "run-b" } });
    expect(decisionOf(other).chosen).toBe("gpt-4");
  });

  it("learns each model's output length from usage metadata, so its expected cost follows what it really writes", async () => {
    const make = (learnOutputTokens?: false) =>
      new IrtRouter({
        models: { "gpt-4": new TerseModel(8) },
        scorer: new ToyScorer(),
        expectedOutputTokens: 256,
        ...(learnOutputTokens === false ? { learnOutputTokens } : {}),
      });
    const costOf = async (router: IrtRouter) =>
      decisionOf(await router.invoke("What is 12 * 12?")).candidates[0]!.expectedCost;
    const learning = make();
    const fixed = make(false);
    const first = await costOf(learning);
    expect(await costOf(fixed)).toBeCloseTo(first, 12);
    for (let i = 0; i < 12; i++) await learning.invoke("What is 12 * 12?");
    for (let i = 0; i < 12; i++) await fixed.invoke("What is 12 * 12?");
    // input tokens x $10/1M + E[out] x $30/1M; E[out] = (4 x 256 + 13 x 8) / 17 after 13 observed calls
    const inputCost = first - (256 * 30) / 1e6;
    expect(await costOf(learning)).toBeCloseTo(inputCost + (((4 * 256 + 13 * 8) / 17) * 30) / 1e6, 9);
    expect(await costOf(fixed)).toBeCloseTo(first, 12);
    expect(
      () =>
        new IrtRouter({
          models: { "gpt-4": new TerseModel(8) },
          scorer: new ToyScorer(),
          learnOutputTokens: { weight: -1 },
        }),
    ).toThrow(/learnOutputTokens.weight/);
  });

  it("generate() runs the child as a nested run of the router's own run", async () => {
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["nested"] }) },
      scorer: new ToyScorer(),
    });
    const recorder = new Recorder();
    const result = await router.generate([[new HumanMessage("hi")]], { callbacks: [recorder] });
    expect(result.generations[0]![0]!.text).toBe("nested");
    expect(recorder.starts.map((s) => s.name)).toEqual(["IrtRouter", "FakeListChatModel"]);
    expect((recorder.starts[1]!.metadata?.irtRouter as RouteDecision).chosen).toBe("mistral");
  });

  it("applies the router's own callbacks, tags and metadata to invoke and stream, as a chat model does", async () => {
    const recorder = new Recorder();
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["a", "b"] }) },
      scorer: new ToyScorer(),
      callbacks: [recorder],
      tags: ["team-tag"],
      metadata: { team: "search" },
    });
    await router.invoke("hi", { tags: ["call-tag"] });
    for await (const _ of await router.stream("hi")) void _;
    for await (const _ of router.streamEvents("hi", { version: "v2" })) void _;
    // the router's own callbacks see its own chat-model run, as a chat model's do, with the decision in its metadata
    expect(recorder.starts.map((s) => s.name)).toEqual(["IrtRouter", "IrtRouter", "IrtRouter"]);
    for (const start of recorder.starts) {
      expect(start.tags).toEqual(expect.arrayContaining(["team-tag"]));
      expect(start.metadata?.team).toBe("search");
      expect((start.metadata?.irtRouter as RouteDecision).chosen).toBe("mistral");
    }
    expect(recorder.starts[0]!.tags).toContain("call-tag");
  });

  it("closes the child's stream when the consumer stops early", async () => {
    let closed = 0;
    const child = new FakeListChatModel({ responses: ["one two three four"] });
    const inner = child._streamResponseChunks.bind(child);
    child._streamResponseChunks = async function* (...args: Parameters<typeof inner>) {
      try {
        yield* inner(...args);
      } finally {
        closed++;
      }
    };
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    for await (const _ of await router.stream("hi")) break;
    await vi.waitFor(() => expect(closed).toBe(1));
  });

  it("generate() with a streaming handler reports each token once (from the child's run)", async () => {
    const streamingRecorder = () => Object.assign(new Recorder(), { lc_prefer_streaming: true });
    const reference = streamingRecorder();
    await new FakeListChatModel({ responses: ["abc"] }).generate([[new HumanMessage("hi")]], {
      callbacks: [reference],
    });
    expect(reference.tokens).toBe(3);
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["abc"] }) },
      scorer: new ToyScorer(),
    });
    const recorder = streamingRecorder();
    await router.generate([[new HumanMessage("hi")]], { callbacks: [recorder] });
    expect(recorder.tokens).toBe(reference.tokens);
  });

  it("streams the child's chunks unchanged in number, the first carrying the decision", async () => {
    const child = new FakeListChatModel({ responses: ["hello world"] });
    const reference = new FakeListChatModel({ responses: ["hello world"] });
    let childChunks = 0;
    for await (const _ of await reference.stream("hi")) childChunks++;
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await router.stream("hi")) chunks.push(chunk);
    expect(chunks.length).toBe(childChunks);
    expect(chunks.map((c) => c.content).join("")).toBe("hello world");
    expect(decisionOf(chunks[0]!).chosen).toBe("mistral");
    const merged = chunks.reduce((a, b) => a.concat(b));
    expect(decisionOf(merged).chosen).toBe("mistral");
  });

  it("streams through streamEvents (v2 events and the chat-model event stream)", async () => {
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["abc"] }) },
      scorer: new ToyScorer(),
    });
    let streamed = "";
    for await (const event of router.streamEvents("hi", { version: "v2" })) {
      if (event.event === "on_chat_model_stream") streamed += (event.data.chunk as AIMessageChunk).content;
    }
    expect(streamed).toBe("abc");
    const stream = router.streamEvents("hi");
    let text = "";
    for await (const t of stream.text) text += t;
    expect(text).toBe("abc");
  });

  it("streamEvents after a fallback reports each chunk once, under a root run that ends well", async () => {
    const router = new IrtRouter({
      models: {
        "gpt-4": fakeModel().alwaysThrow(new Error("502 bad gateway")),
        mistral: new FakeListChatModel({ responses: ["abc"] }),
      },
      scorer: new ToyScorer(),
    });
    const runId = "00000000-0000-4000-8000-0000000000aa";
    const events: { event: string; name: string; run_id: string; text?: string }[] = [];
    for await (const e of router.streamEvents("What is 2+2?", { version: "v2", runId })) {
      const chunk = e.data?.chunk as AIMessageChunk | undefined;
      events.push({
        event: e.event,
        name: e.name,
        run_id: e.run_id,
        text: chunk && typeof chunk.content === "string" ? chunk.content : undefined,
      });
    }
    const modelChunks = events.filter((e) => e.event === "on_chat_model_stream");
    expect(modelChunks.map((e) => e.text).join("")).toBe("abc");
    // the router is the chat model of the event stream; its children are hidden from it (tokens once)
    expect(new Set(modelChunks.map((e) => e.name))).toEqual(new Set(["IrtRouter"]));
    expect(events[0]).toMatchObject({ event: "on_chat_model_start", name: "IrtRouter", run_id: runId });
    expect(events.at(-1)).toMatchObject({ event: "on_chat_model_end", name: "IrtRouter", run_id: runId });
    expect(modelChunks.every((e) => e.run_id === runId)).toBe(true);
  });

  it("a stream with a runId aborted mid-way leaves one run tree: the router's run ends after its child's", async () => {
    const collector = new RunCollectorCallbackHandler();
    const router = new IrtRouter({
      models: { mistral: new FakeListChatModel({ responses: ["one two three"], sleep: 5 }) },
      scorer: new ToyScorer(),
    });
    const controller = new AbortController();
    const runId = "00000000-0000-4000-8000-0000000000cc";
    await expect(
      (async () => {
        for await (const _ of await router.stream("hi", { runId, callbacks: [collector], signal: controller.signal }))
          controller.abort();
      })(),
    ).rejects.toThrow();
    await vi.waitFor(() => expect(collector.tracedRuns).toHaveLength(1), { timeout: 5000 });
    const root = collector.tracedRuns[0]!;
    expect(root.id).toBe(runId);
    expect(root.error).toBeDefined();
    expect(root.child_runs!.map((r) => r.run_type)).toEqual(["llm"]);
    // the child had ended (with its error) when the router's run ended, so it is inside the tree, not a second root
    expect(root.child_runs![0]!.error).toBeDefined();
  });

  it("a call's runId names the router's own run, which succeeds when a fallback answers", async () => {
    class RunRecorder extends BaseCallbackHandler {
      name = "run-recorder";
      runs = new Map<string, { kind: string; parent?: string; status?: string }>();
      names = new Map<string, string | undefined>();
      override async handleChainStart(
        _c: unknown,
        _i: unknown,
        runId: string,
        parent?: string,
        _t?: string[],
        _m?: unknown,
        _type?: string,
        runName?: string,
      ) {
        this.runs.set(runId, { kind: "chain", parent });
        this.names.set(runId, runName);
      }
      override async handleChainEnd(_o: unknown, runId: string) {
        this.runs.get(runId)!.status = "ok";
      }
      override async handleChainError(_e: unknown, runId: string) {
        this.runs.get(runId)!.status = "error";
      }
      override async handleChatModelStart(
        _l: unknown,
        _m: unknown,
        runId: string,
        parent?: string,
        _x?: unknown,
        _t?: string[],
        _md?: unknown,
        runName?: string,
      ) {
        this.runs.set(runId, { kind: "chat", parent });
        this.names.set(runId, runName);
      }
      override async handleLLMEnd(_o: unknown, runId: string) {
        this.runs.get(runId)!.status = "ok";
      }
      override async handleLLMError(_e: unknown, runId: string) {
        this.runs.get(runId)!.status = "error";
      }
    }
    const router = new IrtRouter({
      models: {
        "gpt-4": fakeModel().alwaysThrow(new Error("502 bad gateway")),
        mistral: fakeModel().respond(new AIMessage("ok")),
      },
      scorer: new ToyScorer(),
    });
    const recorder = new RunRecorder();
    const runId = "00000000-0000-4000-8000-0000000000bb";
    const reply = await router.invoke("What is 2+2?", { runId, runName: "my-step", callbacks: [recorder] });
    expect(decisionOf(reply).attempts.map((a) => a.ok)).toEqual([false, true]);
    expect(recorder.runs.get(runId)).toEqual({ kind: "chat", parent: undefined, status: "ok" });
    expect(recorder.names.get(runId)).toBe("my-step");
    const children = [...recorder.runs.entries()].filter(([id]) => id !== runId).map(([, r]) => r);
    expect(children).toEqual([
      { kind: "chat", parent: runId, status: "error" },
      { kind: "chat", parent: runId, status: "ok" },
    ]);
    // the decision stays keyed by the caller's run id, for feedback by run
    expect(router.decisions().at(-1)!.runId).toBe(runId);
  });

  it("an abort cancels the child and is not retried on another model", async () => {
    const slow = new SlowModel();
    const backup = fakeModel().respond(new AIMessage("backup"));
    const router = new IrtRouter({ models: { "gpt-4": slow, mistral: backup }, scorer: new ToyScorer() });
    const controller = new AbortController();
    const call = router.invoke("What is 1+1?", { signal: controller.signal });
    await slow.started;
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    expect(slow.cancelled).toBe(1);
    expect(backup.callCount).toBe(0);
    const d = router.decisions().at(-1)!;
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]!.ok).toBe(false);
  });

  it("a child's timeout is not a cancellation: the next candidate answers", async () => {
    const slow = new SlowModel();
    const backup = fakeModel().respond(new AIMessage("in time"));
    const router = new IrtRouter({ models: { "gpt-4": slow, mistral: backup }, scorer: new ToyScorer() });
    const reply = await router.invoke("What is 1+1?", { timeout: 50 });
    expect(reply.content).toBe("in time");
    expect(decisionOf(reply).attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
  });

  it("a cancellation while the router is still scoring calls no model", async () => {
    const controller = new AbortController();
    class AbortingScorer extends ToyScorer {
      override async itemParams(textOrEmbedding: string | Float32Array) {
        controller.abort(); // the caller cancels while the query is being scored
        return super.itemParams(textOrEmbedding);
      }
    }
    const child = fakeModel().respond(new AIMessage("should not answer"));
    const router = new IrtRouter({ models: { mistral: child }, scorer: new AbortingScorer() });
    await expect(router.invoke("What is 1+1?", { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(child.callCount).toBe(0);
  });

  it("a timeout signal bounds the whole call: when it fires, no other model is tried", async () => {
    const slow = new SlowModel();
    const backup = fakeModel().respond(new AIMessage("too late"));
    const router = new IrtRouter({ models: { "gpt-4": slow, mistral: backup }, scorer: new ToyScorer() });
    await expect(router.invoke("What is 1+1?", { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    // the signal fires while the router plans (no model is called) or while the slow model runs (it is cancelled);
    // either way nothing answers late and no other model is tried
    expect(slow.finished).toBe(0);
    expect(backup.callCount).toBe(0);
  });

  it("falls back to the next candidate when the chosen child throws", async () => {
    const limited = fakeModel().alwaysThrow(Object.assign(new Error("429 Too Many Requests"), { status: 429 }));
    const backup = fakeModel().respond(new AIMessage("from backup"));
    const router = new IrtRouter({ models: { "gpt-4": limited, mistral: backup }, scorer: new ToyScorer() });
    const reply = await router.invoke("What is 2+2?");
    expect(reply.content).toBe("from backup");
    const d = decisionOf(reply);
    expect(d.chosen).toBe("mistral");
    expect(d.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(d.attempts[0]!.error).toMatch(/429/);

    const streaming = new IrtRouter({
      models: {
        "gpt-4": fakeModel().alwaysThrow(new Error("502 bad gateway")),
        mistral: new FakeListChatModel({ responses: ["ok!"] }),
      },
      scorer: new ToyScorer(),
    });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await streaming.stream("What is 2+2?")) chunks.push(chunk);
    expect(chunks.map((c) => c.content).join("")).toBe("ok!");
    expect(decisionOf(chunks[0]!).attempts.map((a) => a.ok)).toEqual([false, true]);
  });

  it("stops after maxAttempts and rethrows the last error with the decision attached", async () => {
    const a = fakeModel().alwaysThrow(new Error("503 a"));
    const b = fakeModel().alwaysThrow(new Error("503 b"));
    const c = fakeModel().respond(new AIMessage("c"));
    const router = new IrtRouter({
      models: { "gpt-4": a, mixtral: b, mistral: c },
      scorer: new ToyScorer(),
      maxAttempts: 2,
    });
    const error = (await router.invoke("What is 2+2?").catch((e: unknown) => e)) as Error & {
      irtRouter: RouteDecision;
    };
    expect(error.message).toBe("503 b");
    expect(error.irtRouter.attempts.map((x) => x.id)).toEqual(["gpt-4", "mixtral"]);
    expect(c.callCount).toBe(0);
  });

  it("filters models that cannot serve the call, and says why when none can", async () => {
    const noTools = new FakeChatModel({});
    const small = withProfile(new FakeListChatModel({ responses: ["x"] }), { maxInputTokens: 5 });
    const router = new IrtRouter({ models: { "gpt-4": noTools, mistral: small }, scorer: new ToyScorer() });
    const bound = router.bindTools([weather]);
    const error = await bound
      .invoke("a fairly long question about the weather in several cities")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoCandidatesError);
    const excluded = (error as NoCandidatesError).excluded;
    expect(excluded.map((e) => e.id)).toEqual(["gpt-4", "mistral"]);
    expect(excluded[0]!.reason).toMatch(/tools/);
    expect(excluded[1]!.reason).toMatch(/context window of 5/);
    expect((error as NoCandidatesError).code).toBe("NO_CANDIDATES");
    // Without tools, the FakeChatModel qualifies.
    const reply = await router.invoke("a fairly long question about the weather in several cities");
    expect(decisionOf(reply).chosen).toBe("gpt-4");
    expect(decisionOf(reply).excluded.map((e) => e.id)).toEqual(["mistral"]);
  });

  it("binds the raw tools on whichever child it picks, fallbacks included", async () => {
    const failing = fakeModel().alwaysThrow(new Error("500 upstream"));
    const backup = fakeModel().respondWithTools([{ name: "get_weather", args: { city: "Paris" }, id: "call_1" }]);
    const router = new IrtRouter({ models: { "gpt-4": failing, mistral: backup }, scorer: new ToyScorer() });
    const spyA = vi.spyOn(failing, "bindTools");
    const spyB = vi.spyOn(backup, "bindTools");
    const bound = router.bindTools([weather], { tool_choice: "auto" } as never);
    const reply = await bound.invoke("Weather in Paris?");
    expect(reply.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    expect(decisionOf(reply).chosen).toBe("mistral");
    expect(spyA).toHaveBeenCalledWith([weather], { tool_choice: "auto" });
    expect(spyB).toHaveBeenCalledWith([weather], { tool_choice: "auto" });
  });

  it("replays withStructuredOutput on the chosen child", async () => {
    const child = fakeModel().structuredResponse({ answer: 42 });
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const structured = router.withStructuredOutput(z.object({ answer: z.number() }));
    await expect(structured.invoke("What is 6 * 7?")).resolves.toEqual({ answer: 42 });
    expect(router.decisions().at(-1)!.chosen).toBe("mistral");
    expect(() => router.bindTools([weather]).withStructuredOutput(z.object({}))).toThrow(ValidationError);
  });

  it("reports the conservative intersection of the children's profiles", () => {
    const a = withProfile(new FakeListChatModel({ responses: ["a"] }), {
      toolCalling: true,
      structuredOutput: true,
      maxInputTokens: 128000,
      imageInputs: true,
    });
    const b = withProfile(new FakeListChatModel({ responses: ["b"] }), {
      toolCalling: true,
      structuredOutput: false,
      maxInputTokens: 8000,
    });
    const router = new IrtRouter({ models: { "gpt-4": a, mistral: b }, scorer: new ToyScorer() });
    expect(router.profile).toEqual({ toolCalling: true, structuredOutput: false, maxInputTokens: 8000 });
  });

  it("forwards non-text content parts untouched and scores only the text", async () => {
    const child = fakeModel().respond(new AIMessage("seen"));
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const message = new HumanMessage({
      content: [
        { type: "text", text: "Describe this image" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    await router.invoke([message]);
    expect(child.calls[0]!.messages[0]!.content).toEqual(message.content);
  });
});

/** Records, for each chat-model run, whether it is the root run and the `ls_model_name` it was opened with. */
class LsRecorder extends BaseCallbackHandler {
  name = "ls-recorder";
  runs: { root: boolean; model?: unknown; provider?: unknown }[] = [];
  override async handleChatModelStart(
    _l: unknown,
    _m: unknown,
    _r: string,
    parent?: string,
    _x?: unknown,
    _t?: string[],
    metadata?: Record<string, unknown>,
  ) {
    this.runs.push({ root: parent === undefined, model: metadata?.ls_model_name, provider: metadata?.ls_provider });
  }
}

describe("IrtRouter: each call's own choice", () => {
  const short = "hi";
  const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
  const twoWay = () =>
    new IrtRouter({
      models: {
        "gpt-4": new FakeListChatModel({ responses: ["a"] }),
        mistral: new FakeListChatModel({ responses: ["b"] }),
      },
      scorer: new ToyScorer(),
      policy: { kind: "cheapest-above", tau: 0.55 },
    });
  /** generate() one prompt: the ls_model_name the router's own run was opened with, and the model that answered. */
  const run = async (router: IrtRouter, text: string, callbacks: BaseCallbackHandler[] = []) => {
    const recorder = new LsRecorder();
    const result = await router.generate([[new HumanMessage(text)]], { callbacks: [recorder, ...callbacks] });
    const message = (result.generations[0]![0] as unknown as { message: AIMessage }).message;
    return { reported: recorder.runs.find((r) => r.root)?.model, chosen: decisionOf(message).chosen };
  };

  it("the router's run reports the model chosen for that call (getLsParams), not the previous call's", async () => {
    const router = twoWay();
    expect((await router.decide(short)).chosen).toBe("gpt-4");
    expect((await router.decide(long)).chosen).toBe("mistral");
    for (const text of [short, long, short]) {
      const { reported, chosen } = await run(router, text);
      expect(reported).toBe(chosen);
    }
    // concurrent calls each report their own
    const both = await Promise.all([run(router, short), run(router, long), run(router, short)]);
    expect(both.map((b) => b.reported)).toEqual(["gpt-4", "mistral", "gpt-4"]);
    // a router from bindTools and the router it came from share nothing per call
    const bound = router.bindTools([]);
    expect((await run(bound, long)).reported).toBe("mistral");
    expect((await run(router, short)).reported).toBe("gpt-4");
    // one generate() whose prompts go to different models has no single choice to report: the router reports itself
    const recorder = new LsRecorder();
    await router.generate([[new HumanMessage(short)], [new HumanMessage(long)]], { callbacks: [recorder] });
    expect(recorder.runs.filter((r) => r.root).map((r) => r.provider)).toEqual(["irt-router", "irt-router"]);
    expect(router.getLsParams({} as never).ls_provider).toBe("irt-router");
  });

  it("plans each call once, also when generate() streams to a streaming handler", async () => {
    const router = twoWay();
    const streaming = Object.assign(new LsRecorder(), { lc_prefer_streaming: true });
    for (const handlers of [[], [streaming]]) {
      const before = router.decisions().length;
      const { reported, chosen } = await run(router, long, handlers);
      expect(router.decisions().length - before).toBe(1);
      expect([reported, chosen]).toEqual(["mistral", "mistral"]);
    }
    // a decision that excludes every model fails inside the router's run, as before
    const none = new IrtRouter({
      models: { mistral: withProfile(new FakeListChatModel({ responses: ["x"] }), { maxInputTokens: 1 }) },
      scorer: new ToyScorer(),
    });
    const errors: unknown[] = [];
    const onError = { handleLLMError: async (e: unknown) => void errors.push(e) };
    await expect(none.generate([[new HumanMessage(long)]], { callbacks: [onError] })).rejects.toBeInstanceOf(
      NoCandidatesError,
    );
    expect(errors[0]).toBeInstanceOf(NoCandidatesError);
  });

  it("with a cache on the router, generate() calls each prompt the cache missed with that prompt's own plan; a cached prompt leaves no decision", async () => {
    const expected = await twoWay().decide(long);
    const streaming = Object.assign(new LsRecorder(), { lc_prefer_streaming: true });
    for (const handlers of [[], [streaming]]) {
      const router = twoWay();
      router.cache = new InMemoryCache();
      await router.generate([[new HumanMessage(short)]]); // the cache now holds gpt-4's reply to the short prompt
      const [first] = router.decisions();
      // BaseChatModel hands _generate only the long prompt, as promptIndex 0
      const result = await router.generate([[new HumanMessage(short)], [new HumanMessage(long)]], {
        callbacks: handlers,
      });
      const [cached, fresh] = result.generations.map((g) => (g[0] as unknown as { message: AIMessage }).message);
      expect([cached!.content, decisionOf(cached!).decisionId]).toEqual(["a", first!.decisionId]); // the reply as cached
      expect(fresh!.content).toBe("b");
      expect(decisionOf(fresh!)).toMatchObject({
        chosen: "mistral",
        inputTokens: expected.inputTokens,
        candidates: expected.candidates,
      });
      expect(router.decisions().map((d) => d.decisionId)).toEqual([first!.decisionId, decisionOf(fresh!).decisionId]);
    }
  });

  it("puts the decision on a copy of the child's message: a cached reply keeps its own, the cache has none", async () => {
    const child = new FakeListChatModel({ responses: ["a", "b"], cache: true });
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const prompt = "a prompt only this test sends (the cache is global)";
    const first = await router.invoke(prompt);
    const firstId = decisionOf(first).decisionId;
    const second = await router.invoke(prompt);
    expect(second.content).toBe("a"); // the cached reply
    expect(second).not.toBe(first);
    expect(decisionOf(first).decisionId).toBe(firstId);
    expect(decisionOf(second).decisionId).not.toBe(firstId);
    expect((await child.invoke(prompt)).response_metadata.irtRouter).toBeUndefined();
    // so does the raw message of withStructuredOutput(..., { includeRaw: true })
    const structuredChild = new ToolCallingFake({ answer: 42 }, { cache: true });
    const structured = new IrtRouter({
      models: { mistral: structuredChild },
      scorer: new ToyScorer(),
    }).withStructuredOutput(z.object({ answer: z.number() }), { includeRaw: true });
    const one = await structured.invoke("a structured prompt only this test sends");
    const two = await structured.invoke("a structured prompt only this test sends");
    expect(two.raw).not.toBe(one.raw);
    expect(decisionOf(one.raw).decisionId).not.toBe(decisionOf(two.raw).decisionId);
  });

  it("a timeout given to the router bounds each attempt (invoke, batch, generate); one set above it bounds the whole call", async () => {
    const setup = () => {
      const backup = fakeModel().respond(new AIMessage("in time"));
      return {
        backup,
        router: new IrtRouter({ models: { "gpt-4": new SlowModel(2000), mistral: backup }, scorer: new ToyScorer() }),
      };
    };
    const attempts = (router: IrtRouter) => router.decisions(1)[0]!.attempts.map((a) => [a.id, a.ok]);
    const fellBack = [
      ["gpt-4", false],
      ["mistral", true],
    ];
    {
      const { router } = setup();
      const [reply] = await router.batch(["What is 1+1?"], { timeout: 50 });
      expect(reply!.content).toBe("in time");
      expect(attempts(router)).toEqual(fellBack);
    }
    {
      const { router } = setup();
      const [reply] = await router.batch(["What is 1+1?"], [{ timeout: 50 }]);
      expect(reply!.content).toBe("in time");
    }
    {
      const { router } = setup();
      const result = await router.generate([[new HumanMessage("What is 1+1?")]], { timeout: 50 });
      expect(result.generations[0]![0]!.text).toBe("in time");
      expect(attempts(router)).toEqual(fellBack);
    }
    {
      // a chain turns its timeout into one signal for everything under it, as withFallbacks does: no fallback
      const { router, backup } = setup();
      const chain = ChatPromptTemplate.fromMessages([["human", "{q}"]]).pipe(router);
      await expect(chain.invoke({ q: "What is 1+1?" }, { timeout: 50 })).rejects.toThrow();
      expect(backup.callCount).toBe(0);
      expect(attempts(router)).toEqual([["gpt-4", false]]);
    }
    {
      // bound on the router, the timeout bounds each attempt inside the chain too
      const { router } = setup();
      const chain = ChatPromptTemplate.fromMessages([["human", "{q}"]]).pipe(router.withConfig({ timeout: 50 }));
      expect((await chain.invoke({ q: "What is 1+1?" })).content).toBe("in time");
      expect(attempts(router)).toEqual(fellBack);
    }
  });

  it("warns once when the budget policy gets calls without a run id (they share one budget)", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({
      models: { mistral: fakeModel().respond(new AIMessage("a")).respond(new AIMessage("b")) },
      scorer: new ToyScorer(),
      policy: { kind: "budget", maxUsdPerRun: 1 },
      logger,
    });
    await router.invoke("What is 2+2?", { metadata: { irtRouterRunId: "run-1" } });
    expect(logger.messages).toEqual([]);
    await router.invoke("What is 2+2?");
    await router.invoke("What is 2+2?").catch(() => undefined);
    const warnings = logger.messages.filter((m) => m.includes("no run id"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/metadata: \{ irtRouterRunId/);
    expect(warnings[0]).toMatch(/irtRouterMiddleware/);
  });
});

describe("IrtRouter withStructuredOutput", () => {
  const Answer = z.object({ answer: z.number() });
  const AnswerJson = {
    title: "Answer",
    type: "object",
    properties: { answer: { type: "number" } },
    required: ["answer"],
  };

  it("replays the schema and its options on the chosen child: includeRaw, a JSON schema, method and name", async () => {
    const cases: [string, unknown, Record<string, unknown> | undefined][] = [
      ["zod, includeRaw", Answer, { includeRaw: true }],
      ["JSON schema", AnswerJson, undefined],
      ["JSON schema, includeRaw", AnswerJson, { includeRaw: true }],
      ["method jsonSchema", Answer, { method: "jsonSchema" }],
      ["method functionCalling, name", Answer, { method: "functionCalling", name: "extract_answer" }],
    ];
    for (const [label, schema, config] of cases) {
      const child = new ToolCallingFake({ answer: 42 });
      const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
      const out = (await router
        .withStructuredOutput(schema as never, config as never)
        .invoke("What is 6 * 7?")) as Record<string, any>;
      expect(child.seen.withStructuredOutput, label).toEqual([[schema, config]]);
      if (config?.includeRaw) {
        expect(out.parsed, label).toEqual({ answer: 42 });
        expect(decisionOf(out.raw).chosen, label).toBe("mistral");
      } else {
        expect(out, label).toEqual({ answer: 42 });
      }
    }
    // a method named in the options is the child's to refuse, as it would be without the router
    const strict = new IrtRouter({ models: { mistral: new ToolCallingFake({ answer: 1 }) }, scorer: new ToyScorer() });
    await expect(strict.withStructuredOutput(Answer, { method: "jsonMode" }).invoke("x")).rejects.toThrow(
      /functionCalling/,
    );
  });

  it("leaves out children that cannot give structured output, and says why when none can", async () => {
    const plain = new FakeChatModel({}); // no bindTools, and LangChain's default withStructuredOutput needs it
    const router = new IrtRouter({
      models: { "gpt-4": plain, mistral: new ToolCallingFake({ answer: 1 }) },
      scorer: new ToyScorer(),
    });
    const out = await router.withStructuredOutput(Answer, { includeRaw: true }).invoke("What is 1?");
    expect(out.parsed).toEqual({ answer: 1 });
    const d = decisionOf(out.raw as AIMessage);
    expect(d.attempts.map((a) => [a.id, a.ok])).toEqual([["mistral", true]]);
    expect(d.excluded).toEqual([{ id: "gpt-4", reason: expect.stringMatching(/cannot give structured output/) }]);
    // the unstructured router still uses it
    expect(decisionOf(await router.invoke("What is 1?")).chosen).toBe("gpt-4");
    const only = new IrtRouter({ models: { "gpt-4": new FakeChatModel({}) }, scorer: new ToyScorer() });
    const error = await only
      .withStructuredOutput(Answer)
      .invoke("x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoCandidatesError);
    expect((error as NoCandidatesError).message).toMatch(/gpt-4: cannot give structured output/);
    // a model with a withStructuredOutput of its own qualifies without bindTools
    class OwnStructured extends FakeChatModel {
      override withStructuredOutput(): any {
        return RunnableLambda.from(async () => ({ answer: 7 }));
      }
    }
    const own = new IrtRouter({ models: { "gpt-4": new OwnStructured({}) }, scorer: new ToyScorer() });
    await expect(own.withStructuredOutput(Answer).invoke("x")).resolves.toEqual({ answer: 7 });
  });
});

describe("IrtRouter defaults", () => {
  it("with no scorer option, routes with the pretrained scorer and its offline encoder", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({
      models: {
        "gpt-4-1106-preview": fakeModel().respond(new AIMessage("a")).respond(new AIMessage("b")),
        "mistralai/mistral-7b-chat": fakeModel().respond(new AIMessage("c")),
      },
      logger,
    });
    const first = decisionOf(await router.invoke("Prove that the square root of 2 is irrational."));
    expect(first.policy).toBe("quality");
    expect(first.candidates.map((c) => c.id).sort()).toEqual(["gpt-4-1106-preview", "mistralai/mistral-7b-chat"]);
    for (const c of first.candidates) {
      expect(c.p).toBeGreaterThan(0);
      expect(c.p).toBeLessThan(1);
      expect(c.expectedCost).toBeGreaterThan(0); // catalog / list prices
    }
    expect(first.chosen).toBe(first.candidates[0]!.id);
    expect(first.candidates[0]!.p).toBeGreaterThanOrEqual(first.candidates[1]!.p);
    expect(first.cacheHit).toBe(false);
    expect(first.encodeMs).toBeGreaterThan(0); // the offline encoder embedded the text
    const again = decisionOf(await router.invoke("Prove that the square root of 2 is irrational."));
    expect(again.cacheHit).toBe(true);
    expect(again.candidates.map((c) => c.p)).toEqual(first.candidates.map((c) => c.p));
    expect(logger.messages).toEqual([]); // both ids are in the catalog, with prices
  });
});
