import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { UseLiteEncoder, type TruncationInfo } from "../../adapters/encoders/use-lite.js";
import { getTf } from "../../adapters/tf.js";
import { loadGraphModelFromFiles } from "../../adapters/encoders/graph-model-files.js";
import { EncoderInputError, EncoderUnavailableError, ValidationError } from "../../src/errors.js";

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

function expectUsable(v: Float32Array) {
  expect(v).toBeInstanceOf(Float32Array);
  expect(v.length).toBe(512);
  expect(v.every(Number.isFinite)).toBe(true);
  expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
}

describe("UseLiteEncoder", () => {
  let encoder: UseLiteEncoder;
  const truncations: TruncationInfo[] = [];

  beforeAll(async () => {
    encoder = await UseLiteEncoder.load({ maxBatch: 2, cacheSize: 3, onTruncate: (t) => truncations.push(t) });
  });
  afterAll(() => encoder.dispose());

  it("identifies encoder and weights version, 512-d, and says which backend runs it", () => {
    expect(encoder.id).toBe("use-lite-512@model-embeddings-en-0.2.0");
    expect(encoder.dim).toBe(512);
    expect(["wasm", "cpu", "tensorflow"]).toContain(encoder.backend);
    expect(encoder.maxTokens).toBe(128);
  });

  it("keeps input order across length-sorting and batches of 2, matching one-at-a-time vectors", async () => {
    const texts = [
      "a much longer question about the capital cities of several European countries",
      "hi",
      "medium length text here",
    ];
    const fresh = await UseLiteEncoder.load({ cacheSize: 0, maxBatch: 32 });
    const batched = await fresh.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await fresh.embed([texts[i]!]);
      expectUsable(batched[i]!);
      expect(maxDiff(batched[i]!, single!)).toBeLessThan(1e-5);
    }
    const viaSmallBatches = await encoder.embed(texts);
    viaSmallBatches.forEach((v, i) => expect(maxDiff(v, batched[i]!)).toBeLessThan(1e-5));
    fresh.dispose();
  });

  it("serves repeats from the cache, as copies the caller cannot use to corrupt it", async () => {
    const text = "cache me if you can";
    const first = await encoder.embedDetailed([text]);
    expect(first.details[0]!.cached).toBe(false);
    const original = first.vectors[0]!.slice();
    first.vectors[0]!.fill(42);
    const hitsBefore = encoder.cacheStats.hits;
    const modelRuns = vi.spyOn(encoder as unknown as { runModel: () => unknown }, "runModel");
    const tokenizerRuns = vi.spyOn(encoder.tokenizer, "encode");
    const second = await encoder.embedDetailed([text]);
    expect(modelRuns).not.toHaveBeenCalled();
    expect(tokenizerRuns).not.toHaveBeenCalled();
    modelRuns.mockRestore();
    tokenizerRuns.mockRestore();
    expect(second.details[0]).toEqual({ tokens: first.details[0]!.tokens, truncated: false, cached: true });
    expect(encoder.cacheStats.hits).toBe(hitsBefore + 1);
    expect(Array.from(second.vectors[0]!)).toEqual(Array.from(original));
  });

  it("embeds a text repeated within one call once and returns independent copies", async () => {
    const { vectors, details } = await encoder.embedDetailed(["twice said", "twice said"]);
    expect(details.map((d) => d.cached)).toEqual([false, false]);
    expect(vectors[0]).not.toBe(vectors[1]);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(vectors[1]!));
  });

  it("computes a text asked for by two concurrent calls once: the later call takes it from the cache", async () => {
    const modelRuns = vi.spyOn(encoder as unknown as { runModel: (lists: number[][]) => unknown }, "runModel");
    const before = encoder.cacheStats;
    const [a, b] = await Promise.all([
      encoder.embedDetailed(["asked twice at once"]),
      encoder.embedDetailed(["asked twice at once", "and one more"]),
    ]);
    const rows = modelRuns.mock.calls.reduce((n, [lists]) => n + lists.length, 0);
    modelRuns.mockRestore();
    expect(rows).toBe(2); // "asked twice at once" and "and one more", each once
    expect(a.details[0]!.cached).toBe(false);
    expect(b.details.map((d) => d.cached)).toEqual([true, false]);
    expect(Array.from(b.vectors[0]!)).toEqual(Array.from(a.vectors[0]!));
    // three lookups, three counts (no text counted twice)
    const after = encoder.cacheStats;
    expect(after.hits + after.misses - before.hits - before.misses).toBe(3);
  });

  it("evicts the least recently used entry beyond cacheSize", async () => {
    await encoder.embed(["one", "two", "three"]);
    await encoder.embed(["one"]); // refresh "one"
    await encoder.embed(["four"]); // evicts "two"
    const { details } = await encoder.embedDetailed(["one", "two"]);
    expect(details.map((d) => d.cached)).toEqual([true, false]);
    expect(encoder.cacheStats.size).toBeLessThanOrEqual(3);
  });

  it("truncates past the cap, reports it, and tells onTruncate which input", async () => {
    truncations.length = 0;
    const long = "word ".repeat(300);
    const { vectors, details } = await encoder.embedDetailed(["short", long]);
    expectUsable(vectors[1]!);
    expect(details[1]!.truncated).toBe(true);
    expect(details[1]!.tokens).toBeGreaterThan(128);
    expect(details[0]!.truncated).toBe(false);
    expect(truncations).toEqual([{ index: 1, tokens: details[1]!.tokens, kept: 128 }]);
    // Reported again when served from the cache.
    await encoder.embedDetailed([long]);
    expect(truncations.at(-1)).toEqual({ index: 0, tokens: details[1]!.tokens, kept: 128 });
  });

  it("with a lower maxTokens, only the first maxTokens tokens matter", async () => {
    const small = await UseLiteEncoder.load({ maxTokens: 8, cacheSize: 0 });
    const prefix = "one two three four five six seven eight";
    expect(small.tokenize(prefix).tokens).toBeGreaterThanOrEqual(8);
    const [a, b] = await small.embed([`${prefix} nine ten`, `${prefix} completely different ending`]);
    expect(maxDiff(a!, b!)).toBe(0);
    const [c] = await encoder.embed([`${prefix} nine ten`]);
    expect(maxDiff(a!, c!)).toBeGreaterThan(1e-3);
    small.dispose();
  });

  describe("bad input", () => {
    const rejects = async (texts: unknown, index: number | undefined, pattern: RegExp) => {
      const error = await encoder.embed(texts as string[]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EncoderInputError);
      expect((error as EncoderInputError).code).toBe("ENCODER_INPUT");
      expect((error as Error).message).toMatch(pattern);
      expect((error as EncoderInputError).path).toBe(index === undefined ? "texts" : `texts.${index}`);
    };

    it("rejects a non-array argument", () => rejects("just a string", undefined, /array of strings/));
    it("rejects non-string values, naming the index and the type", async () => {
      await rejects(["ok", 3], 1, /texts\[1\] is a number/);
      await rejects(["ok", "fine", null], 2, /texts\[2\] is null/);
      await rejects([undefined], 0, /texts\[0\] is undefined/);
      await rejects(["ok", { text: "x" }], 1, /an object/);
      await rejects([["nested"]], 0, /an array/);
    });
    it("rejects the empty string", () => rejects(["fine", ""], 1, /texts\[1\] is the empty string/));

    it("embeds whitespace-only, zero-width and control-character texts to finite unit vectors", async () => {
      const texts = [" ", "   ", "\t\n", "\u200b", "\u200b\u200c\u200d\ufeff", "a\u200bb", "\u0000\u0001"];
      const vectors = await encoder.embed(texts);
      vectors.forEach(expectUsable);
    });

    it("embeds a lone surrogate as the unknown token by default, and rejects it with loneSurrogates: error", async () => {
      const [v] = await encoder.embed(["broken \ud83d emoji"]);
      expectUsable(v!);
      const strict = await UseLiteEncoder.load({ loneSurrogates: "error", cacheSize: 0 });
      const error = await strict.embed(["fine 😀", "broken \ud83d emoji"]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EncoderInputError);
      expect((error as Error).message).toMatch(/texts\[1\] has an unpaired UTF-16 surrogate \(0xd83d\) at index 7/);
      strict.dispose();
    });

    it("embeds a 1 MB text (truncated to the cap) to a finite unit vector", async () => {
      const huge = "The quick brown fox jumps over the lazy dog. ".repeat(23_000);
      expect(huge.length).toBeGreaterThan(1_000_000);
      const { vectors, details } = await encoder.embedDetailed([huge]);
      expectUsable(vectors[0]!);
      expect(details[0]!.truncated).toBe(true);
      expect(details[0]!.tokens).toBeGreaterThan(100_000);
    });
  });

  it("gives the same vectors to concurrent calls as to sequential ones", async () => {
    const fresh = await UseLiteEncoder.load({ cacheSize: 0 });
    const batches = [["alpha beta"], ["gamma", "delta epsilon"], ["zeta eta theta"]];
    const concurrent = await Promise.all(batches.map((b) => fresh.embed(b)));
    for (let i = 0; i < batches.length; i++) {
      const sequential = await fresh.embed(batches[i]!);
      sequential.forEach((v, j) => expect(maxDiff(v, concurrent[i]![j]!)).toBeLessThan(1e-6));
    }
    fresh.dispose();
    await expect(fresh.embed(["after dispose"])).rejects.toBeInstanceOf(EncoderUnavailableError);
  });

  describe("options and loading", () => {
    it.each([
      [{ maxTokens: 129 }, "UseLiteOptions.maxTokens"],
      [{ maxBatch: 0 }, "UseLiteOptions.maxBatch"],
      [{ cacheSize: -1 }, "UseLiteOptions.cacheSize"],
      [{ loneSurrogates: "drop" }, "UseLiteOptions.loneSurrogates"],
      [{ onTruncate: "warn" }, "UseLiteOptions.onTruncate"],
      [{ maxbatch: 8 }, "UseLiteOptions.maxbatch"],
    ])("rejects %j naming %s", async (options, path) => {
      const error = await UseLiteEncoder.load(options as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe(path);
    });

    it("reports a missing or broken model directory as EncoderUnavailableError naming the file", async () => {
      const dir = await mkdtemp(join(tmpdir(), "use-lite-"));
      const missing = await UseLiteEncoder.load({ modelDir: dir }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(EncoderUnavailableError);
      expect((missing as Error).message).toMatch(/model\.json/);
      await writeFile(join(dir, "model.json"), "{not json");
      const { tf } = await getTf();
      const broken = await loadGraphModelFromFiles(tf, join(dir, "model.json")).catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(EncoderUnavailableError);
      expect((broken as EncoderUnavailableError).file).toBe(join(dir, "model.json"));
      await writeFile(
        join(dir, "model.json"),
        JSON.stringify({ modelTopology: { node: [] }, weightsManifest: [{ paths: ["shard"], weights: [] }] }),
      );
      const noShard = await loadGraphModelFromFiles(tf, join(dir, "model.json")).catch((e: unknown) => e);
      expect(noShard).toBeInstanceOf(EncoderUnavailableError);
      expect((noShard as Error).message).toMatch(/shard/);
    });
  });
});
