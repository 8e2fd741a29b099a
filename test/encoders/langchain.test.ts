import { Embeddings } from "@langchain/core/embeddings";
import { SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { LangChainEncoder, defaultLangChainEncoderId } from "../../adapters/encoders/langchain.js";
import { EmbeddingProviderError, EncoderInputError, ValidationError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";

const providerError = (promise: Promise<unknown>) => rejectedWith(EmbeddingProviderError, promise);

/** A real LangChain Embeddings subclass whose output the test scripts. */
class ScriptedEmbeddings extends Embeddings {
  calls: string[][] = [];
  constructor(
    private readonly reply: (texts: string[]) => unknown,
    readonly model?: string,
  ) {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls.push(texts);
    return this.reply(texts) as number[][];
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

const three = (texts: string[]) => texts.map((t) => [t.length, 1, -1]);

describe("LangChainEncoder", () => {
  it("wraps a real LangChain Embeddings class and returns one Float32Array per text, in order", async () => {
    const lc = new SyntheticEmbeddings({ vectorSize: 8 });
    const encoder = new LangChainEncoder(lc, { dim: 8 });
    expect(encoder.id).toBe("langchain:SyntheticEmbeddings");
    const texts = ["short", "a somewhat longer text", "ünïcødé ✓"];
    const vectors = await encoder.embed(texts);
    const expected = await lc.embedDocuments(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(expected.map((v) => Array.from(new Float32Array(v))));
  });

  it("derives the id from the class name and the model, and accepts an explicit id", () => {
    expect(defaultLangChainEncoderId(new ScriptedEmbeddings(three, "text-embedding-3-small"))).toBe(
      "langchain:ScriptedEmbeddings/text-embedding-3-small",
    );
    expect(new LangChainEncoder(new ScriptedEmbeddings(three), { dim: 3 }).id).toBe("langchain:ScriptedEmbeddings");
    expect(new LangChainEncoder(new ScriptedEmbeddings(three), { dim: 3, id: "mine" }).id).toBe("mine");
  });

  it("create() probes dim with one call when it is not given", async () => {
    const lc = new ScriptedEmbeddings(three);
    const encoder = await LangChainEncoder.create(lc);
    expect(encoder.dim).toBe(3);
    expect(lc.calls).toHaveLength(1);
    expect((await LangChainEncoder.create(lc, { dim: 3 })).dim).toBe(3);
    expect(lc.calls).toHaveLength(1);
  });

  it("splits into batchSize calls when asked", async () => {
    const lc = new ScriptedEmbeddings(three);
    const out = await new LangChainEncoder(lc, { dim: 3, batchSize: 2 }).embed(["a", "bb", "ccc"]);
    expect(lc.calls).toEqual([["a", "bb"], ["ccc"]]);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3]);
  });

  it("a wrong dimension names the index and both sizes", async () => {
    const lc = new ScriptedEmbeddings((texts) => texts.map((t, i) => (i === 1 ? [1, 2] : [t.length, 1, 1])));
    const err = await providerError(new LangChainEncoder(lc, { dim: 3 }).embed(["a", "b", "c"]));
    expect(err.message).toMatch(/length 2 for text 1/);
    expect(err.details).toMatchObject({ index: 1, expectedDim: 3, actualDim: 2 });
  });

  it("NaN, Infinity and non-numbers are errors naming the vector and component", async () => {
    for (const [bad, pattern] of [
      [NaN, /non-finite value \(NaN\) at vector 0, component 2/],
      [Infinity, /non-finite value \(Infinity\)/],
      ["0.5", /a string of length 3 at vector 0, component 2/],
      [1e300, /overflows float32/],
    ] as const) {
      const lc = new ScriptedEmbeddings(() => [[1, 2, bad]]);
      expect((await providerError(new LangChainEncoder(lc, { dim: 3 }).embed(["x"]))).message).toMatch(pattern);
    }
  });

  it("the wrong number of vectors is an error", async () => {
    const lc = new ScriptedEmbeddings(() => [[1, 2, 3]]);
    const err = await providerError(new LangChainEncoder(lc, { dim: 3 }).embed(["x", "y"]));
    expect(err.message).toMatch(/for 2 texts; expected one vector per text/);
  });

  it("a failure of the embeddings class becomes an EmbeddingProviderError with the cause and status", async () => {
    const cause = Object.assign(new Error("Incorrect API key provided"), { status: 401 });
    const lc = new ScriptedEmbeddings(() => {
      throw cause;
    });
    const err = await providerError(new LangChainEncoder(lc, { dim: 3 }).embed(["x"]));
    expect(err.message).toMatch(/Incorrect API key/);
    expect(err.status).toBe(401);
    expect(err.cause).toBe(cause);
  });

  it("rejects bad input and bad options with typed errors", async () => {
    const lc = new ScriptedEmbeddings(three);
    expect(() => new LangChainEncoder({} as never, { dim: 3 })).toThrow(ValidationError);
    expect(() => new LangChainEncoder(lc, { dim: -1 })).toThrow(/LangChainEncoder options\.dim/);
    expect(() => new LangChainEncoder(lc, { dim: 3, id: "" })).toThrow(/LangChainEncoder options\.id/);
    const encoder = new LangChainEncoder(lc, { dim: 3 });
    await expect(encoder.embed("not an array" as never)).rejects.toThrow(EncoderInputError);
    await expect(encoder.embed(["ok", null as never])).rejects.toThrow(/texts\[1\] is null/);
    expect(await encoder.embed([])).toEqual([]);
    expect(lc.calls).toHaveLength(0);
  });
});
