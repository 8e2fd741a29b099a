import { mkdtempSync, readFileSync, rmSync, writeFileSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScorer, saveScorer } from "../../adapters/artifact/index.js";
import { defaultUseLiteInfo } from "../../adapters/encoders/use-lite.js";
import { ArtifactError, EncoderMismatchError, EncoderUnavailableError, UnknownModelError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { resolveIrtMoeConfig } from "../../src/scorer/config.js";
import type { ScorerArtifact } from "../../src/scorer/artifact.js";
import { manifestChecksum, sha256Hex } from "../../src/scorer/serialize.js";
import { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { rejectedWith } from "../errors.js";
import { buildCatalog } from "../../src/scorer/catalog.js";
import { trainingRng } from "../../src/util/random.js";
import { initWeights } from "../../src/scorer/weights.js";
import { TOY_ARCH, toyScorerParts } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "irt-scorer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENC = { id: "test-encoder@1", dim: 8 };
const models = ["gpt-4-1106-preview", "mistralai/mixtral-8x7b-chat", "Meta-Llama-3-8B"];

function artifact(): ScorerArtifact {
  const { weights, catalog } = toyScorerParts(
    4,
    ["gpt-4-1106-preview", "mixtral-8x7b-instruct-v0.1", "meta-llama-3-8b"],
    (_id, m) => ({ names: [models[m]!], nLabels: 10 + m }),
  );
  return {
    weights,
    catalog,
    encoder: ENC,
    config: resolveIrtMoeConfig({ experts: 2, hidden: 6, out: 5, abilityDim: 3 }),
    temperature: 1.25,
    calibration: { applied: true, fitted: 1.25, eceBefore: 0.05, eceAfter: 0.02 },
    training: {
      datasets: [{ name: "toy", counts: { train: 1, val: 1, test: 1 }, models }],
      splitRule: "protocol",
      seed: 1,
      bestEpoch: 1,
      epochs: 1,
      trainSeconds: 0,
    },
    metrics: { toy: { test: { routingAccuracy: 0.5 } } },
  };
}

const vec = Float32Array.from([0.1, -0.2, 0.3, 0.05, 0, 0.7, -0.4, 0.2]);

async function saved(name: string): Promise<string> {
  const dir = join(root, name);
  await saveScorer(dir, artifact());
  return dir;
}

function fakeEncoder(id = ENC.id, dim = ENC.dim): QueryEncoder {
  return { id, dim, embed: async (texts) => texts.map(() => vec.slice(0, dim)) };
}

describe("scorer artifact", () => {
  it("round-trips: same predictions, catalog and manifest", async () => {
    const a = artifact();
    const original = new IrtMoeScorer({
      weights: a.weights,
      catalog: a.catalog,
      encoderInfo: ENC,
      temperature: a.temperature,
    });
    const scorer = await loadScorer(await saved("ok"), { encoder: fakeEncoder() });
    expect(await scorer.predict(vec)).toEqual(await original.predict(vec));
    expect(await scorer.predict("some text")).toEqual(await original.predict(vec));
    expect(scorer.models.map((m) => m.id)).toEqual([
      "gpt-4-1106-preview",
      "mixtral-8x7b-instruct-v0.1",
      "meta-llama-3-8b",
    ]);
    expect(scorer.manifest?.temperature).toBe(1.25);
    expect(Array.from(scorer.ability("meta-llama-3-8b"))).toEqual(Array.from(a.weights.theta.slice(6, 9)));
    const ip = await scorer.itemParams(vec);
    expect(ip.alpha.length).toBe(3);
    expect(Number.isFinite(ip.beta)).toBe(true);
  });

  it("resolves aliases and names close matches for unknown models", async () => {
    const scorer = await loadScorer(await saved("alias"), { encoder: fakeEncoder() });
    const [s] = await scorer.predict(vec, ["mistralai/Mixtral-8x7B-Instruct-v0.1"]);
    expect(s!.model).toBe("mixtral-8x7b-instruct-v0.1");
    expect(() => scorer.ability("gpt-4-1106")).toThrow(UnknownModelError);
    try {
      scorer.ability("gpt4-1106-preview");
    } catch (error) {
      expect((error as UnknownModelError).code).toBe("UNKNOWN_MODEL");
      expect((error as UnknownModelError).suggestions).toContain("gpt-4-1106-preview");
    }
  });

  it("refuses a vector of the wrong dimension and an encoder with another id, naming the manifest", async () => {
    const dir = await saved("enc");
    const file = join(dir, "manifest.json");
    const scorer = await loadScorer(dir, { encoder: fakeEncoder() });
    await expect(scorer.predict(new Float32Array(7))).rejects.toBeInstanceOf(EncoderMismatchError);
    const given = await rejectedWith(
      EncoderMismatchError,
      loadScorer(dir, { encoder: fakeEncoder("other-encoder", 8) }),
    );
    expect(given).toMatchObject({ code: "ENCODER_MISMATCH", file });
    expect(given.message).toContain(
      `${file} records encoder "test-encoder@1" (dim 8), but this scorer is being used with encoder "other-encoder" (dim 8)`,
    );
    // a loader function: checked when it runs, at the first text query, still naming the file
    const lazy = await loadScorer(dir, { encoder: async () => fakeEncoder("other-encoder", 8) });
    expect(lazy.manifestFile).toBe(file);
    const late = await rejectedWith(EncoderMismatchError, lazy.predict("text"));
    expect(late).toMatchObject({ file, message: expect.stringMatching(/test-encoder@1.*other-encoder/) });
  });

  it("refuses at load an artifact built with another encoder than the default one, unless asked for embeddings only", async () => {
    const dir = await saved("enc-default");
    const file = join(dir, "manifest.json");
    const { id } = await defaultUseLiteInfo(); // from the weights package's version: nothing is loaded
    const err = await rejectedWith(EncoderMismatchError, loadScorer(dir));
    expect(err).toMatchObject({ code: "ENCODER_MISMATCH", file, expected: ENC, actual: { id, dim: 512 } });
    expect(err.message).toMatch(/No options\.encoder was given.*encoder: null to score embeddings only/);
    const vectorsOnly = await loadScorer(dir, { encoder: null });
    expect(await vectorsOnly.predict(vec)).toHaveLength(3);
    await expect(vectorsOnly.predict("text")).rejects.toBeInstanceOf(EncoderUnavailableError);
    // the default encoder's id with another dim is another encoder too
    const otherDim = join(root, "enc-use-lite-8");
    await saveScorer(otherDim, { ...artifact(), encoder: { id, dim: 8 } });
    expect((await rejectedWith(EncoderMismatchError, loadScorer(otherDim))).file).toBe(join(otherDim, "manifest.json"));
    // an artifact of the default encoder loads (the encoder itself loads at the first text query)
    const useLite = join(root, "enc-use-lite");
    const weights = initWeights(trainingRng(2), { ...TOY_ARCH, inDim: 512 }, ["a", "b"], 0.6);
    const catalog = buildCatalog(
      weights.theta,
      TOY_ARCH.abilityDim,
      ["a", "b"].map((m) => ({ id: m, names: [m], sources: ["toy"], nLabels: 1, accuracy: 0.5 })),
    );
    await saveScorer(useLite, { ...artifact(), weights, catalog, encoder: { id, dim: 512 } });
    expect((await loadScorer(useLite)).encoder).toEqual({ id, dim: 512 });
  });

  it("detects a corrupted byte in weights.bin", async () => {
    const dir = await saved("corrupt");
    const file = join(dir, "weights.bin");
    const bytes = readFileSync(file);
    bytes[100] = bytes[100]! ^ 0x01;
    writeFileSync(file, bytes);
    const err = await loadScorer(dir).catch((e) => e);
    expect(err).toBeInstanceOf(ArtifactError);
    expect(err.code).toBe("ARTIFACT_INTEGRITY");
    expect(err.file).toBe(file);
    expect(err.message).toMatch(/weights\.bin is corrupted: its sha256/);
  });

  it("detects a corrupted catalog.json", async () => {
    const dir = await saved("corrupt-catalog");
    const file = join(dir, "catalog.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("meta-llama-3-8b", "meta-llama-3-9b"));
    await expect(loadScorer(dir)).rejects.toMatchObject({ code: "ARTIFACT_INTEGRITY", file });
  });

  it("detects a truncated file", async () => {
    const dir = await saved("truncated");
    const file = join(dir, "weights.bin");
    truncateSync(file, 64);
    const err = await loadScorer(dir).catch((e) => e);
    expect(err).toMatchObject({ code: "ARTIFACT_INTEGRITY", file });
    expect(err.message).toMatch(/truncated/);
  });

  it("refuses another format version", async () => {
    const dir = await saved("version");
    const file = join(dir, "manifest.json");
    const m = JSON.parse(readFileSync(file, "utf8"));
    m.formatVersion = 99;
    m.manifestSha256 = manifestChecksum(m); // a consistent manifest of a version this reader does not know
    writeFileSync(file, JSON.stringify(m));
    const err = await loadScorer(dir).catch((e) => e);
    expect(err).toMatchObject({ code: "ARTIFACT_FORMAT", file });
    expect(err.message).toMatch(/formatVersion 99 is not supported/);
  });

  describe("the manifest's own checksum", () => {
    it("detects a flipped byte in manifest.json (a value the other checksums do not cover)", async () => {
      const dir = await saved("manifest-byte");
      const file = join(dir, "manifest.json");
      const bytes = readFileSync(file);
      const at = bytes.indexOf('"temperature": 1.25') + '"temperature": 1.'.length;
      expect(String.fromCharCode(bytes[at]!)).toBe("2");
      bytes[at] = bytes[at]! ^ 0x01; // one bit: '2' (0x32) -> '3' (0x33), still valid JSON (temperature 1.35)
      writeFileSync(file, bytes);
      const err = await rejectedWith(ArtifactError, loadScorer(dir, { encoder: fakeEncoder() }));
      expect(err).toMatchObject({ code: "ARTIFACT_INTEGRITY", file, path: "manifest.manifestSha256" });
      expect(err.message).toMatch(
        /manifest\.json is corrupted: the sha256 of its content is [0-9a-f]{64} but its manifestSha256 records/,
      );
    });

    it("detects a changed key name, a missing checksum and a version rewritten to 1", async () => {
      const dir = await saved("manifest-key");
      const file = join(dir, "manifest.json");
      const text = readFileSync(file, "utf8");
      // a key name changed: the field is no longer found, which a version-2 manifest may not be without
      writeFileSync(file, text.replace('"manifestSha256"', '"manifestSha2%6"'));
      const renamed = await rejectedWith(ArtifactError, loadScorer(dir));
      expect(renamed).toMatchObject({
        code: "ARTIFACT_INTEGRITY",
        file,
        message: expect.stringMatching(/has no manifestSha256, which format version 2 requires/),
      });
      // the version turned into the one without a checksum, the checksum kept: the checksum covers the version
      writeFileSync(file, text.replace('"formatVersion": 2', '"formatVersion": 1'));
      await expect(loadScorer(dir)).rejects.toMatchObject({ code: "ARTIFACT_INTEGRITY", file });
      // reformatting is not a change
      writeFileSync(file, JSON.stringify(JSON.parse(text)));
      await expect(loadScorer(dir, { encoder: fakeEncoder() })).resolves.toBeInstanceOf(IrtMoeScorer);
    });

    it("loads a format-version-1 artifact, which has no manifest checksum", async () => {
      const dir = await saved("v1");
      const file = join(dir, "manifest.json");
      const { manifestSha256, ...m } = JSON.parse(readFileSync(file, "utf8"));
      expect(manifestSha256).toMatch(/^[0-9a-f]{64}$/);
      writeFileSync(file, JSON.stringify({ ...m, formatVersion: 1 }));
      const scorer = await loadScorer(dir, { encoder: fakeEncoder() });
      expect(scorer.manifest?.formatVersion).toBe(1);
      expect(await scorer.predict(vec)).toEqual(
        await (await loadScorer(await saved("v2"), { encoder: fakeEncoder() })).predict(vec),
      );
    });
  });

  it("refuses a truncated manifest and a missing file", async () => {
    const dir = await saved("manifest");
    const file = join(dir, "manifest.json");
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 200));
    await expect(loadScorer(dir)).rejects.toMatchObject({ code: "ARTIFACT_FORMAT", file });
    const dir2 = await saved("missing");
    rmSync(join(dir2, "catalog.json"));
    await expect(loadScorer(dir2)).rejects.toMatchObject({ code: "ARTIFACT_FORMAT", file: join(dir2, "catalog.json") });
  });

  describe("a manifest that does not match its weights or catalog", () => {
    /** Saves an artifact, lets `edit` change the parsed manifest (and catalog), writes both back with fresh checksums (the manifest's own too). */
    async function edited(name: string, edit: (manifest: any, catalog: any) => void): Promise<string> {
      const dir = await saved(name);
      const manifestFile = join(dir, "manifest.json");
      const catalogFile = join(dir, "catalog.json");
      const m = JSON.parse(readFileSync(manifestFile, "utf8"));
      const c = JSON.parse(readFileSync(catalogFile, "utf8"));
      edit(m, c);
      const catalogBytes = new TextEncoder().encode(JSON.stringify(c));
      writeFileSync(catalogFile, catalogBytes);
      m.catalog.byteLength = catalogBytes.byteLength;
      m.catalog.sha256 = sha256Hex(catalogBytes);
      m.manifestSha256 = manifestChecksum(m);
      writeFileSync(manifestFile, JSON.stringify(m));
      return dir;
    }

    it("refuses an encoder dim other than the architecture's input dim, naming the manifest", async () => {
      const dir = await edited("enc-dim", (m) => (m.encoder.dim = 16));
      const err = await loadScorer(dir).catch((e) => e);
      expect(err).toBeInstanceOf(ArtifactError);
      expect(err).toMatchObject({
        code: "ARTIFACT_FORMAT",
        file: join(dir, "manifest.json"),
        path: "manifest.encoder.dim",
      });
    });

    it.each(["experts", "hidden", "out", "abilityDim"])(
      "refuses hyperparameters.%s differing from the architecture",
      async (key) => {
        const dir = await edited(`hp-${key}`, (m) => (m.hyperparameters[key] += 1));
        await expect(loadScorer(dir)).rejects.toMatchObject({
          code: "ARTIFACT_FORMAT",
          path: `manifest.hyperparameters.${key}`,
        });
      },
    );

    it("refuses a tensor the architecture has no place for, and a tensor listed twice", async () => {
      const extra = await edited("extra-tensor", (m) =>
        m.weights.tensors.push({ name: "experts.2.l1.W", shape: [8, 6], offset: 0 }),
      );
      const err = await loadScorer(extra).catch((e) => e);
      expect(err).toMatchObject({ code: "ARTIFACT_FORMAT", file: join(extra, "weights.bin") });
      expect(err.message).toMatch(/experts\.2\.l1\.W/);
      const twice = await edited("twice-tensor", (m) => m.weights.tensors.push({ ...m.weights.tensors[0], offset: 4 }));
      await expect(loadScorer(twice)).rejects.toMatchObject({
        code: "ARTIFACT_FORMAT",
        message: expect.stringMatching(/listed twice/),
      });
    });

    it("refuses a tensor holding a non-finite value, naming the tensor and the index", async () => {
      const dir = await saved("nan-tensor");
      const weightsFile = join(dir, "weights.bin");
      const manifestFile = join(dir, "manifest.json");
      const m = JSON.parse(readFileSync(manifestFile, "utf8"));
      const tensor = m.weights.tensors[1];
      const bytes = readFileSync(weightsFile);
      bytes.writeFloatLE(Number.NaN, tensor.offset + 3 * 4);
      writeFileSync(weightsFile, bytes);
      m.weights.sha256 = sha256Hex(bytes);
      m.manifestSha256 = manifestChecksum(m);
      writeFileSync(manifestFile, JSON.stringify(m));
      await expect(loadScorer(dir)).rejects.toMatchObject({
        code: "ARTIFACT_FORMAT",
        file: weightsFile,
        message: expect.stringContaining(`tensor "${tensor.name}" holds a non-finite value at index 3`),
      });
    });

    it("refuses a catalog with one id on two rows", async () => {
      const dir = await edited("dup-id", (_m, c) => (c.models[2].id = c.models[0].id));
      await expect(loadScorer(dir)).rejects.toMatchObject({
        code: "ARTIFACT_FORMAT",
        file: join(dir, "catalog.json"),
        path: "catalog.models.2.id",
      });
    });

    it("refuses a catalog whose ability vector is not its row of theta, naming the model", async () => {
      const dir = await edited("ability-not-theta", (_m, c) => (c.models[1].ability[0] += 0.5));
      await expect(loadScorer(dir)).rejects.toMatchObject({
        code: "ARTIFACT_FORMAT",
        file: join(dir, "catalog.json"),
        message: expect.stringMatching(/ability vector differs from row 1 of theta/),
      });
    });

    it("names the bad field of a manifest that fails its schema", async () => {
      const dir = await edited("bad-temperature", (m) => (m.temperature = 0));
      await expect(loadScorer(dir)).rejects.toMatchObject({ code: "ARTIFACT_FORMAT", path: "manifest.temperature" });
    });
  });
});
