import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildProbeBank } from "../../adapters/learning/probe-bank.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { toyScorerParts } from "../scorer/helpers.js";

const root = mkdtempSync(join(tmpdir(), "irt-probe-bank-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENC = { id: "probe-bank-test-encoder@1", dim: 8 };
const encoder: QueryEncoder = {
  ...ENC,
  embed: async (texts) =>
    texts.map((t) => Float32Array.from({ length: ENC.dim }, (_, k) => Math.sin(t.length * 0.37 + k))),
};

function scorer(seed: number, temperature = 1): IrtMoeScorer {
  const { weights, catalog } = toyScorerParts(seed, ["m0", "m1"]);
  return new IrtMoeScorer({ weights, catalog, encoderInfo: ENC, temperature, encoder });
}

const SECRET = "SECRET-ITEM-TEXT";
const ds: CorrectnessDataset = {
  name: "toy probes",
  models: ["m0", "m1"],
  items: Array.from({ length: 12 }, (_, i) => ({
    id: `q${i}`,
    text: `${SECRET} number ${"x".repeat(i)} answer ANSWER-${i}`,
  })),
  labels: { offsets: new Int32Array(13), model: new Int32Array(0), y: new Float32Array(0) },
  source: { dir: "/nowhere", files: [], sha256: "toy-sha-1" },
};

function cacheFiles(dir: string): string[] {
  return readdirSync(dir);
}

describe("buildProbeBank cache", () => {
  it("does not reuse a bank built by another scorer that has no manifest", async () => {
    const cacheDir = join(root, "unsaved");
    const a = await buildProbeBank(scorer(1), ds, { cacheDir, size: 5 });
    const b = await buildProbeBank(scorer(2), ds, { cacheDir, size: 5 });
    expect(a.fromCache).toBe(false);
    expect(b.fromCache).toBe(false);
    expect(Array.from(b.bank.alphas)).not.toEqual(Array.from(a.bank.alphas));
    const again = await buildProbeBank(scorer(2), ds, { cacheDir, size: 5 });
    expect(again.fromCache).toBe(true);
    expect(Array.from(again.bank.alphas)).toEqual(Array.from(b.bank.alphas));
  });

  it("does not reuse a bank folded with another temperature", async () => {
    const cacheDir = join(root, "temperature");
    const a = await buildProbeBank(scorer(1, 1), ds, { cacheDir, size: 5 });
    const b = await buildProbeBank(scorer(1, 2), ds, { cacheDir, size: 5 });
    expect(b.fromCache).toBe(false);
    expect(b.bank.betas[0]).toBeCloseTo(a.bank.betas[0]! / 2, 5);
  });

  it("keys by bank size, seed and dataset version", async () => {
    const cacheDir = join(root, "keys");
    const s = scorer(3);
    await buildProbeBank(s, ds, { cacheDir, size: 5, seed: 1 });
    expect((await buildProbeBank(s, ds, { cacheDir, size: 6, seed: 1 })).fromCache).toBe(false);
    expect((await buildProbeBank(s, ds, { cacheDir, size: 5, seed: 2 })).fromCache).toBe(false);
    const v2 = { ...ds, source: { ...ds.source, sha256: "toy-sha-2" } };
    expect((await buildProbeBank(s, v2, { cacheDir, size: 5, seed: 1 })).fromCache).toBe(false);
    expect((await buildProbeBank(s, ds, { cacheDir, size: 5, seed: 1 })).fromCache).toBe(true);
  });

  it("stores ids and numbers only, never item texts or answers, and leaves no temporary file", async () => {
    const cacheDir = join(root, "content");
    await buildProbeBank(scorer(4), ds, { cacheDir, size: 12 });
    const files = cacheFiles(cacheDir);
    expect(files).toHaveLength(1);
    const text = readFileSync(join(cacheDir, files[0]!), "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("ANSWER");
  });

  it.each([
    ["truncated betas", (c: any) => ({ ...c, betas: c.betas.slice(0, 2) })],
    ["non-numeric alphas", (c: any) => ({ ...c, alphas: c.alphas.map(() => "oops") })],
    ["null betas", (c: any) => ({ ...c, betas: c.betas.map(() => null) })],
    [
      "another dim",
      (c: any) => ({
        ...c,
        dim: c.dim * 2 + 1,
        alphas: [...c.alphas, ...c.alphas, ...c.alphas.slice(0, c.ids.length)],
      }),
    ],
    ["other ids", (c: any) => ({ ...c, ids: c.ids.map((id: string) => `${id}x`) })],
    ["truncated JSON", (c: any) => JSON.stringify(c).slice(0, 100)],
  ])("rebuilds a cache file with %s instead of using it", async (_label, corrupt) => {
    const cacheDir = join(root, `corrupt-${_label.replace(/\W/g, "_")}`);
    const s = scorer(5);
    const good = await buildProbeBank(s, ds, { cacheDir, size: 6 });
    const [name] = cacheFiles(cacheDir);
    const file = join(cacheDir, name!);
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    const bad = corrupt(parsed);
    writeFileSync(file, typeof bad === "string" ? bad : JSON.stringify(bad));
    const again = await buildProbeBank(s, ds, { cacheDir, size: 6 });
    expect(again.fromCache).toBe(false);
    expect(again.bank.ids).toEqual(good.bank.ids);
    expect(Array.from(again.bank.betas)).toEqual(Array.from(good.bank.betas));
    expect(Array.from(again.bank.alphas)).toEqual(Array.from(good.bank.alphas));
    // and the rebuilt file is served next time
    expect((await buildProbeBank(s, ds, { cacheDir, size: 6 })).fromCache).toBe(true);
  });

  it("returns the computed bank with a warning when the cache cannot be written", async () => {
    const blocker = join(root, "a-file-not-a-folder");
    writeFileSync(blocker, "x");
    const warnings: string[] = [];
    const s = scorer(6);
    const r = await buildProbeBank(s, ds, {
      cacheDir: join(blocker, "banks"),
      size: 5,
      onWarning: (m) => warnings.push(m),
    });
    expect(r.fromCache).toBe(false);
    expect(r.bank.ids).toHaveLength(5);
    expect(r.bank.ids).toEqual((await buildProbeBank(s, ds, { cacheDir: join(root, "writable"), size: 5 })).bank.ids);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be cached in .*a-file-not-a-folder.*used uncached/);
  });
});
