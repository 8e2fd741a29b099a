import { describe, expect, it } from "vitest";
import { isWatchable, watched, type CallWatch } from "../../src/mastra/watched-model.js";

/** A model in the shape Mastra calls, with private state (as a provider's class may have). */
class FakeModel {
  readonly specificationVersion = "v3";
  #calls = 0;
  #fail: unknown = undefined;
  get modelId(): string {
    return `fake-${this.#calls}`;
  }
  failNext(error: unknown): void {
    this.#fail = error;
  }
  async doGenerate(): Promise<string> {
    this.#calls++;
    const error = this.#fail;
    this.#fail = undefined;
    if (error !== undefined) throw error;
    return "answer";
  }
  doStream(): Promise<string> {
    throw new Error("thrown before any promise");
  }
}

describe("the watched model the Mastra processor serves when the agent has fallback models", () => {
  it("notes a rejected call's error, passes it on unchanged, and clears it when a later call resolves", async () => {
    const model = new FakeModel();
    const watch: CallWatch = {};
    const served = watched(model, watch);
    const error = new Error("429 rate limited");
    model.failNext(error);
    await expect(served.doGenerate()).rejects.toBe(error);
    expect(watch.rejection).toEqual({ error });
    await expect(served.doGenerate()).resolves.toBe("answer");
    expect(watch.rejection).toBeUndefined();
  });

  it("notes a call that throws before returning a promise, as a rejection", async () => {
    const watch: CallWatch = {};
    await expect(watched(new FakeModel(), watch).doStream()).rejects.toThrow("thrown before any promise");
    expect(String((watch.rejection?.error as Error).message)).toBe("thrown before any promise");
  });

  it("notes the error a returned stream throws part-way, after passing its chunks on; a whole stream notes nothing", async () => {
    const broken = new Error("connection reset");
    const model = {
      doGenerate: async () => "answer",
      doStream: async (fail: boolean) => ({
        request: { body: "kept" },
        stream: new ReadableStream<string>({
          start(controller) {
            controller.enqueue("a");
            controller.enqueue("b");
            if (!fail) controller.close();
          },
          pull: (controller) => controller.error(broken),
        }),
      }),
    };
    const watch: CallWatch = {};
    const served = watched(model, watch);
    const read = async (stream: ReadableStream<string>) => {
      const chunks: string[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return chunks;
    };
    const whole = await served.doStream(false);
    expect(whole.request).toEqual({ body: "kept" });
    expect(await read(whole.stream)).toEqual(["a", "b"]);
    expect(watch.rejection).toBeUndefined();
    const failing = (await served.doStream(true)).stream;
    const chunks: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of failing) chunks.push(chunk);
      })(),
    ).rejects.toBe(broken);
    expect(chunks).toEqual(["a", "b"]);
    expect(watch.rejection).toEqual({ error: broken });
  });

  it("leaves a result whose stream cannot be replaced as it is, its stream readable", async () => {
    const stream = new ReadableStream<string>({
      start(controller) {
        controller.enqueue("a");
        controller.close();
      },
    });
    const frozen = Object.freeze({ stream });
    const served = watched({ doGenerate: async () => "answer", doStream: async () => frozen }, {});
    const result = await served.doStream();
    expect(result).toBe(frozen);
    expect(result.stream.locked).toBe(false);
  });

  it("reads every other property from the model itself: getters and methods on private fields, instanceof, in", async () => {
    const model = new FakeModel();
    const served = watched(model, {});
    await served.doGenerate();
    expect(served.modelId).toBe("fake-1");
    served.failNext(new Error("x")); // a method using a private field, bound to the model
    await expect(model.doGenerate()).rejects.toThrow("x");
    expect(served).toBeInstanceOf(FakeModel);
    expect(served.constructor).toBe(FakeModel);
    expect("specificationVersion" in served && served.specificationVersion).toBe("v3");
  });

  it("watches only a model Mastra calls as it is: not a model id string or a config object", () => {
    expect(isWatchable(new FakeModel())).toBe(true);
    expect(isWatchable("openai/gpt-4o")).toBe(false);
    expect(isWatchable({ id: "openai/gpt-4o", url: "http://127.0.0.1/v1" })).toBe(false);
    expect(isWatchable(undefined)).toBe(false);
  });
});

describe("the watched model at its edges (review)", () => {
  it("a consumer that cancels part-way records its reason, not the closed controller's error", async () => {
    const watch: CallWatch = {};
    let cancelledWith: unknown;
    const model = {
      doGenerate: async () => "answer",
      doStream: async () => ({
        stream: new ReadableStream<number>({
          start(c) {
            c.enqueue(1); // then nothing: a stalled provider
          },
          cancel(reason) {
            cancelledWith = reason;
          },
        }),
      }),
    };
    const { stream } = (await watched(model, watch).doStream()) as { stream: ReadableStream<number> };
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: 1 });
    const pending = reader.read(); // a pull waiting on the provider
    const timeout = new Error("Model call timed out before first content after 300ms");
    await reader.cancel(timeout);
    await pending;
    await new Promise((r) => setTimeout(r, 0));
    expect(cancelledWith).toBe(timeout); // the cancel reaches the provider
    expect(watch.rejection).toEqual({ error: timeout }); // was "Invalid state: Controller is already closed"
    const quiet: CallWatch = {};
    const again = (await watched(model, quiet).doStream()) as { stream: ReadableStream<number> };
    for await (const _ of again.stream) break; // a consumer that stops early, with no reason
    expect(quiet.rejection).toBeUndefined();
  });

  it("a frozen object literal model is not watched, and its calls work through the proxy", async () => {
    const frozen = Object.freeze({
      doGenerate: async () => "answer",
      doStream: async () => ({ stream: new ReadableStream() }),
      other: () => "other",
    });
    expect(isWatchable(frozen)).toBe(false);
    const served = watched(frozen, {}); // a proxy must return frozen own properties unchanged
    await expect(served.doGenerate()).resolves.toBe("answer"); // threw a TypeError
    expect(served.other()).toBe("other");
  });
});
