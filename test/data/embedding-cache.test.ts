import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { getDatasetEmbeddings, predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import {
  datasetTextHash,
  embedDataset,
  embeddingCacheDir,
  peekCachedEmbeddings,
  readEmbeddingCacheFile,
  resumeNote,
  type EmbedAbort,
  type EmbedProgress,
} from "../../adapters/data/embedding-cache.js";
import { UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { writeOwnDataFolder } from "../../adapters/data/own-data.js";
import { CacheError, EmbeddingProviderError } from "../../src/errors.js";
import { CsrBuilder } from "../../src/data/csr.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { rejectedWith } from "../errors.js";
import { fileBecomesFolder, folderBecomesFile, TestEncoder } from "./test-encoder.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-emb-cache-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(tmp, `cache${n++}`);

function dataset(count: number, prefix = "text"): CorrectnessDataset {
  const b = new CsrBuilder(false);
  for (let i = 0; i < count; i++) {
    b.add(0, i % 2);
    b.endItem();
  }
  return {
    name: "tiny",
    models: ["m"],
    items: Array.from({ length: count }, (_, i) => ({ id: `q${i}`, text: `${prefix} number ${i}` })),
    labels: b.build(),
    source: { dir: "/nowhere", files: [], sha256: "0".repeat(64) },
  };
}

function expected(ds: CorrectnessDataset, dim: number): Float32Array {
  const out = new Float32Array(ds.items.length * dim);
  ds.items.forEach((item, i) => out.set(TestEncoder.vector(item.text, dim), i * dim));
  return out;
}

const noTmpFiles = (dir: string) => expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

describe("embedDataset cache", () => {
  it("computes once, then serves the same vectors from the cache without calling the encoder", async () => {
    const ds = dataset(70);
    const cacheDir = freshDir();
    const encoder = new TestEncoder();
    const progress: number[] = [];
    const first = await embedDataset(ds, encoder, {
      cacheDir,
      batchSize: 16,
      onProgress: (p) => progress.push(p.done),
    });
    expect(first.fromCache).toBe(false);
    expect(first.vectors).toEqual(expected(ds, 8));
    expect(encoder.texts).toBe(70);
    expect(progress).toEqual([0, 16, 32, 48, 64, 70]);
    const again = new TestEncoder();
    const hitProgress: EmbedProgress[] = [];
    const second = await embedDataset(ds, again, { cacheDir, onProgress: (p) => hitProgress.push(p) });
    expect(second.fromCache).toBe(true);
    expect(again.calls).toBe(0);
    expect(hitProgress).toEqual([]); // nothing computed, no progress (a consumer would draw a bar with a made-up rate)
    expect(Buffer.from(second.vectors.buffer).equals(Buffer.from(first.vectors.buffer))).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([first.file.slice(cacheDir.length + 1)]);
    expect((await peekCachedEmbeddings(ds, { id: encoder.id, dim: 8 }, { cacheDir }))?.vectors).toEqual(first.vectors);
  });

  it("keys the file by encoder id and by the item ids and texts", async () => {
    const cacheDir = freshDir();
    const a = await embedDataset(dataset(5), new TestEncoder("enc-a"), { cacheDir });
    const b = await embedDataset(dataset(5), new TestEncoder("enc-b"), { cacheDir });
    const c = await embedDataset(dataset(5, "other"), new TestEncoder("enc-a"), { cacheDir });
    expect(new Set([a.file, b.file, c.file]).size).toBe(3);
    expect(b.fromCache || c.fromCache).toBe(false);
    // Labels and source hash do not matter: same ids and texts share the file.
    const relabelled = { ...dataset(5), source: { dir: "/x", files: [], sha256: "f".repeat(64) } };
    expect((await embedDataset(relabelled, new TestEncoder("enc-a"), { cacheDir })).fromCache).toBe(true);
    expect(datasetTextHash(dataset(5))).not.toBe(datasetTextHash(dataset(5), false));
  });

  it("writes the documented layout: magic, header length, JSON header, 4-byte aligned little-endian float32", async () => {
    const ds = dataset(3);
    const { file, vectors } = await embedDataset(ds, new TestEncoder("enc", 4), { cacheDir: freshDir() });
    const bytes = readFileSync(file);
    expect(bytes.toString("latin1", 0, 8)).toBe("IRTEMB01");
    const h = bytes.readUInt32LE(8);
    const header = JSON.parse(bytes.toString("utf8", 12, 12 + h));
    expect(header).toMatchObject({
      format: 1,
      kind: "complete",
      encoderId: "enc",
      dim: 4,
      count: 3,
      done: 3,
      dataset: { name: "tiny" },
    });
    expect(header.dataHash).toBe(datasetTextHash(ds));
    expect((12 + h) % 4).toBe(0);
    expect(bytes.length).toBe(12 + h + 3 * 4 * 4);
    expect(bytes.readFloatLE(12 + h + 4 * 5)).toBe(vectors[5]);
  });

  it("recomputes on a corrupted byte, a truncated file or a header mismatch, never returning wrong vectors", async () => {
    const ds = dataset(20);
    const cacheDir = freshDir();
    const { file } = await embedDataset(ds, new TestEncoder(), { cacheDir });
    const good = readFileSync(file);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 3]! ^= 0x40;
    writeFileSync(file, flipped);
    let enc = new TestEncoder();
    let run = await embedDataset(ds, enc, { cacheDir });
    expect(run.fromCache).toBe(false);
    expect(run.cacheProblem).toMatch(/checksum/);
    expect(enc.texts).toBe(20);
    expect(run.vectors).toEqual(expected(ds, 8));
    expect(readFileSync(file).equals(good)).toBe(true);

    writeFileSync(file, good.subarray(0, good.length - 10));
    enc = new TestEncoder();
    run = await embedDataset(ds, enc, { cacheDir });
    expect(run.cacheProblem).toMatch(/truncated/);
    expect(enc.texts).toBe(20);

    writeFileSync(file, good.subarray(0, 20));
    expect((await embedDataset(ds, new TestEncoder(), { cacheDir })).cacheProblem).toMatch(/truncated header/);
    writeFileSync(file, "garbage");
    expect((await embedDataset(ds, new TestEncoder(), { cacheDir })).cacheProblem).toMatch(/not an embedding cache/);

    const exp = {
      encoderId: "test-encoder@1",
      dim: 8,
      count: 20,
      dataHash: datasetTextHash(ds),
      itemIdHash: datasetTextHash(ds, false),
    };
    expect((await readEmbeddingCacheFile(file, exp)).ok).toBe(true);
    expect(await readEmbeddingCacheFile(file, { ...exp, dim: 16 })).toEqual({
      ok: false,
      reason: "dim differs (8 != 16)",
    });
    expect((await readEmbeddingCacheFile(file, { ...exp, encoderId: "x" })).ok).toBe(false);
    expect((await readEmbeddingCacheFile(file, { ...exp, dataHash: "x" })).ok).toBe(false);
    noTmpFiles(cacheDir);
  });

  it("checkpoints partial progress and resumes an interrupted run", async () => {
    const ds = dataset(50);
    const cacheDir = freshDir();
    const crashing = new TestEncoder("test-encoder@1", 8, { failAfterCalls: 3 });
    await expect(embedDataset(ds, crashing, { cacheDir, batchSize: 10, checkpointEveryMs: 0 })).rejects.toThrow(
      /simulated crash/,
    );
    const files = readdirSync(cacheDir);
    expect(files.filter((f) => f.endsWith(".emb.partial"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".emb"))).toHaveLength(0);

    const resumedEncoder = new TestEncoder();
    const progress: [number, number][] = [];
    const run = await embedDataset(ds, resumedEncoder, {
      cacheDir,
      batchSize: 10,
      onProgress: (p) => progress.push([p.done, p.resumed]),
    });
    expect(run.resumed).toBe(30);
    expect(resumedEncoder.texts).toBe(20);
    expect(progress[0]).toEqual([30, 30]);
    expect(run.vectors).toEqual(expected(ds, 8));
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".partial"))).toEqual([]);
    noTmpFiles(cacheDir);
  });

  it("an abort checkpoints and rejects with the signal's reason", async () => {
    const ds = dataset(40);
    const cacheDir = freshDir();
    const controller = new AbortController();
    const reason = new Error("stop now");
    const encoder = new TestEncoder();
    const run = embedDataset(ds, encoder, {
      cacheDir,
      batchSize: 10,
      checkpointEveryMs: 1e9,
      onProgress: (p) => {
        if (p.done === 20) controller.abort(reason);
      },
      signal: controller.signal,
    });
    await expect(run).rejects.toBe(reason);
    const resumed = await embedDataset(ds, new TestEncoder(), { cacheDir, batchSize: 10 });
    expect(resumed.resumed).toBe(20);
    expect(resumed.vectors).toEqual(expected(ds, 8));
  });

  it("an abort tries the checkpoint again after a periodic one failed, and tells onAbort whether it was written", async () => {
    const ds = dataset(40);
    const cacheDir = freshDir();
    const controller = new AbortController();
    // the folder is a file while the first periodic checkpoint is written, and a folder again when the run is aborted
    const encoder = new TestEncoder(undefined, undefined, {
      beforeCall: (call) => {
        if (call === 0) folderBecomesFile(cacheDir);
        if (call === 1) {
          fileBecomesFolder(cacheDir);
          controller.abort(new Error("stop"));
        }
      },
    });
    const warnings: string[] = [];
    const aborts: EmbedAbort[] = [];
    const run = embedDataset(ds, encoder, {
      cacheDir,
      batchSize: 10,
      checkpointEveryMs: 0,
      signal: controller.signal,
      onWarning: (m) => warnings.push(m),
      onAbort: (a) => aborts.push(a),
    });
    await expect(run).rejects.toThrow("stop");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/progress could not be checkpointed .*one is tried again if the run is interrupted/);
    expect(aborts).toEqual([{ done: 20, total: 40, checkpointed: 20, file: expect.stringMatching(/\.emb\.partial$/) }]);
    const resumed = await embedDataset(ds, new TestEncoder(), { cacheDir, batchSize: 10 });
    expect(resumed.resumed).toBe(20);
    expect(resumed.vectors).toEqual(expected(ds, 8));
  });

  it("an abort whose checkpoint cannot be written says so (onAbort, else one warning), never that progress was kept", async () => {
    for (const withOnAbort of [true, false]) {
      const ds = dataset(40);
      const cacheDir = freshDir();
      const controller = new AbortController();
      const encoder = new TestEncoder(undefined, undefined, {
        beforeCall: (call) => {
          if (call !== 0) return;
          folderBecomesFile(cacheDir);
          controller.abort(new Error("stop"));
        },
      });
      const warnings: string[] = [];
      const aborts: EmbedAbort[] = [];
      const run = embedDataset(ds, encoder, {
        cacheDir,
        batchSize: 10,
        checkpointEveryMs: 1e9,
        signal: controller.signal,
        onWarning: (m) => warnings.push(m),
        ...(withOnAbort ? { onAbort: (a: EmbedAbort) => void aborts.push(a) } : {}),
      });
      await expect(run).rejects.toThrow("stop");
      if (withOnAbort) {
        expect(aborts).toEqual([
          {
            done: 10,
            total: 40,
            checkpointed: 0,
            file: expect.any(String),
            problem: "a part of the path is a file, not a folder",
          },
        ]);
        expect(resumeNote(aborts[0]!)).toBe("a rerun starts over");
        expect(warnings).toEqual([]);
      } else {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(
          /interrupted run's progress could not be checkpointed .*a part of the path is a file.*a rerun starts over/,
        );
      }
      rmSync(cacheDir, { force: true });
    }
  });

  it("refuses bad encoder output (NaN, wrong length, wrong count) and caches nothing", async () => {
    for (const bad of ["nan", "short", "count"] as const) {
      const cacheDir = freshDir();
      await expect(embedDataset(dataset(5), new TestEncoder("t", 8, { bad }), { cacheDir })).rejects.toThrow(
        EmbeddingProviderError,
      );
      expect(readdirSync(cacheDir).filter((f) => f.endsWith(".emb"))).toEqual([]);
    }
  });

  it("validates its options", async () => {
    await expect(embedDataset(dataset(2), new TestEncoder(), { batchSize: 0 })).rejects.toThrow(/options.batchSize/);
    await expect(embedDataset(dataset(2), new TestEncoder(), { bogus: 1 } as never)).rejects.toThrow(/options/);
  });

  it("puts the cache in IRT_ROUTER_CACHE, else <package>/.cache/embeddings", () => {
    expect(embeddingCacheDir(undefined, { IRT_ROUTER_CACHE: join(tmp, "env-cache") })).toBe(join(tmp, "env-cache"));
    expect(embeddingCacheDir(undefined, {})).toBe(join(packageRoot(), ".cache", "embeddings"));
    expect(embeddingCacheDir(join(tmp, "explicit"), { IRT_ROUTER_CACHE: "/elsewhere" })).toBe(join(tmp, "explicit"));
  });

  it("a cache folder that cannot be created is a CacheError naming the fix, before anything is embedded", async () => {
    const file = join(tmp, "a-regular-file");
    writeFileSync(file, "not a folder");
    const encoder = new TestEncoder();
    const error = await rejectedWith(CacheError, embedDataset(dataset(5), encoder, { cacheDir: join(file, "cache") }));
    expect(encoder.calls).toBe(0);
    expect(error.code).toBe("CACHE_UNUSABLE");
    expect(error.path).toBe("options.cacheDir");
    expect(error.message).toContain(join(file, "cache"));
    expect(error.message).toMatch(/a part of the path is a file.*--cache-dir.*cacheDir.*IRT_ROUTER_CACHE/);

    const fromEnv = await rejectedWith(
      CacheError,
      embedDataset(dataset(5), encoder, { env: { IRT_ROUTER_CACHE: join(file, "env") } }),
    );
    expect(fromEnv.path).toBe("IRT_ROUTER_CACHE");
    expect(fromEnv.message).toMatch(/given by IRT_ROUTER_CACHE/);
    expect(encoder.calls).toBe(0);

    // the default encoder is not even loaded (its multi-second load comes after the folder check)
    const load = vi.spyOn(UseLiteEncoder, "load").mockRejectedValue(new Error("the default encoder was loaded"));
    try {
      await rejectedWith(CacheError, getDatasetEmbeddings(dataset(5), { cacheDir: join(file, "cache") }));
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
    }
  });

  it("vectors computed but not writable to the cache are returned with one warning, not lost", async () => {
    const ds = dataset(30);
    const cacheDir = freshDir();
    // the folder is usable when checked, then disappears under a file while the texts are embedded
    const encoder = new TestEncoder(undefined, undefined, {
      beforeCall: (call) => call === 0 && folderBecomesFile(cacheDir),
    });
    const warnings: string[] = [];
    const got = await embedDataset(ds, encoder, { cacheDir, batchSize: 10, onWarning: (m) => warnings.push(m) });
    expect(got.vectors).toEqual(expected(ds, 8));
    expect(got.fromCache).toBe(false);
    expect(got.notCached).toMatch(/a part of the path is a file/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be cached in .*used uncached.*--cache-dir/);
    rmSync(cacheDir, { force: true });
  });

  it("getDatasetEmbeddings serves the default encoder's cached vectors without loading it, and reports no progress for them", async () => {
    const ds = dataset(6);
    const cacheDir = freshDir();
    const predicted = (await predictedDefaultEncoder())!;
    await embedDataset(ds, new TestEncoder(predicted.id, predicted.dim), { cacheDir });
    const load = vi.spyOn(UseLiteEncoder, "load");
    try {
      const progress: EmbedProgress[] = [];
      const got = await getDatasetEmbeddings(ds, { cacheDir, onProgress: (p) => progress.push(p) });
      expect(got.fromCache).toBe(true);
      expect(progress).toEqual([]);
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
    }
  });

  it("getDatasetEmbeddings loads a dataset folder and embeds it in one call", async () => {
    const ds = dataset(12);
    const dir = join(tmp, "folder", "tiny");
    await writeOwnDataFolder(ds, dir);
    const cacheDir = freshDir();
    const encoder = new TestEncoder();
    const got = await getDatasetEmbeddings(dir, { encoder, cacheDir });
    expect(got.dataset.items.map((i) => i.text)).toEqual(ds.items.map((i) => i.text));
    expect(got.vectors).toEqual(expected(ds, 8));
    expect((await getDatasetEmbeddings(got.dataset, { encoder, cacheDir })).fromCache).toBe(true);
  });
});
