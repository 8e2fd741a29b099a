import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defaultStaticDir,
  defaultStaticInfo,
  isStaticId,
  StaticEncoder,
  staticEncoderId,
} from "../../adapters/encoders/static.js";
import { EncoderInputError, EncoderUnavailableError, ValidationError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, j) => s + x * b[j]!, 0);

describe("StaticEncoder (the shipped table)", () => {
  let encoder: StaticEncoder;
  beforeAll(async () => {
    encoder = await StaticEncoder.load();
  });

  it("reports the manifest's identity, which names a static table and the build's digest", async () => {
    const manifest = JSON.parse(await readFile(join(defaultStaticDir(), "manifest.json"), "utf8"));
    expect(encoder.id).toBe(manifest.id);
    expect(encoder.dim).toBe(manifest.dim);
    expect(isStaticId(encoder.id)).toBe(true);
    expect(encoder.id).toBe(
      staticEncoderId(manifest.dim, manifest.dtype, manifest.table.sha256, manifest.vocabulary.sha256),
    );
    expect(await defaultStaticInfo()).toEqual({ id: encoder.id, dim: encoder.dim });
    expect(manifest.notice).toMatch(/Apache License 2\.0/);
  });

  it("gives finite unit vectors, the same for the same text, closer for related texts", async () => {
    const texts = [
      "How do I reverse a linked list in Python?",
      "Write a Python function that reverses a singly linked list.",
      "What is the capital of France?",
      "Which city is the capital of Germany?",
      "   ",
      "🙂 emoji only 🙂",
      "x".repeat(20_000),
    ];
    const vectors = await encoder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toHaveLength(encoder.dim);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(dot(v, v)).toBeCloseTo(1, 4);
    }
    const [again] = await encoder.embed([texts[0]!]);
    expect(Array.from(again!)).toEqual(Array.from(vectors[0]!));
    // Two related pairs (linked lists, capitals) against the four cross pairs, on average. Not per text: the fitted
    // table puts short questions of one form close ("How do I ...?" and "What is ...?" at 0.54; docs/encoders.md).
    const related = (dot(vectors[0]!, vectors[1]!) + dot(vectors[2]!, vectors[3]!)) / 2;
    const cross = [0, 1].flatMap((a) => [2, 3].map((b) => dot(vectors[a]!, vectors[b]!)));
    expect(related).toBeGreaterThan(cross.reduce((x, y) => x + y, 0) / cross.length + 0.2);
  });

  it("reads at most maxTokens tokens", async () => {
    const short = await StaticEncoder.load({ maxTokens: 3 });
    expect(short.tokenize("one two three four five six")).toHaveLength(3);
    const [cut] = await short.embed(["one two three four five six"]);
    const [prefix] = await short.embed(["one two three"]);
    expect(Array.from(cut!)).toEqual(Array.from(prefix!));
  });

  it("refuses bad input with an EncoderInputError naming the index", async () => {
    const error = await rejectedWith(EncoderInputError, encoder.embed(["ok", ""]));
    expect(error.path).toBe("texts.1");
    const strict = await StaticEncoder.load({ loneSurrogates: "error" });
    expect((await rejectedWith(EncoderInputError, strict.embed(["a\uD800b"]))).path).toBe("texts.0");
  });

  it("refuses bad options with a ValidationError", async () => {
    await rejectedWith(ValidationError, StaticEncoder.load({ maxTokens: 0 }));
    await rejectedWith(ValidationError, StaticEncoder.load({ cacheSize: 3 } as never));
  });
});

describe("StaticEncoder.load on a damaged folder", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "static-encoder-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function copy(name: string): Promise<string> {
    const to = join(dir, name);
    await cp(defaultStaticDir(), to, { recursive: true });
    return to;
  }

  it("names a table that does not match its checksum", async () => {
    const to = await copy("corrupt");
    const table = await readFile(join(to, "table.bin"));
    table[100] = table[100]! ^ 0xff;
    await writeFile(join(to, "table.bin"), table);
    const error = await rejectedWith(EncoderUnavailableError, StaticEncoder.load({ dir: to }));
    expect(error.file).toBe(join(to, "table.bin"));
    expect(error.message).toMatch(/does not match its manifest/);
  });

  it("names a missing or malformed manifest", async () => {
    const to = await copy("bad-manifest");
    await writeFile(join(to, "manifest.json"), JSON.stringify({ format: "something else" }));
    expect((await rejectedWith(EncoderUnavailableError, StaticEncoder.load({ dir: to }))).message).toMatch(
      /not a static encoder manifest: format/,
    );
    const missing = join(dir, "nowhere");
    expect((await rejectedWith(EncoderUnavailableError, StaticEncoder.load({ dir: missing }))).file).toBe(
      join(missing, "manifest.json"),
    );
  });
});
