import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { loadScorer, saveScorer } from "../../adapters/artifact/index.js";
import type { ScorerArtifact } from "../../src/scorer/artifact.js";
import { resolveIrtMoeConfig } from "../../src/scorer/config.js";
import { toyScorerParts } from "./helpers.js";

const failOn = vi.hoisted(() => ({ name: undefined as string | undefined }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const orig = await importOriginal<typeof import("node:fs/promises")>();
  const writeFile = (async (path: Parameters<typeof orig.writeFile>[0], ...rest: unknown[]) => {
    if (failOn.name && String(path).includes(failOn.name))
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${String(path)}'`), { code: "ENOSPC" });
    return (orig.writeFile as (...a: unknown[]) => Promise<void>)(path, ...rest);
  }) as typeof orig.writeFile;
  return { ...orig, writeFile, default: { ...orig, writeFile } };
});

const root = mkdtempSync(join(tmpdir(), "irt-save-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENC = { id: "test-encoder@1", dim: 8 };
const vec = Float32Array.from([0.1, -0.2, 0.3, 0.05, 0, 0.7, -0.4, 0.2]);

function artifact(seed: number): ScorerArtifact {
  const { weights, catalog } = toyScorerParts(seed, ["a", "b", "c"]);
  return {
    weights,
    catalog,
    encoder: ENC,
    config: resolveIrtMoeConfig({ experts: 2, hidden: 6, out: 5, abilityDim: 3 }),
    temperature: 1,
    calibration: { applied: false, fitted: 1, eceBefore: 0.05, eceAfter: 0.05 },
    training: {
      datasets: [{ name: "toy", counts: { train: 1, val: 1, test: 1 }, models: ["a", "b", "c"] }],
      splitRule: "protocol",
      seed,
      bestEpoch: 1,
      epochs: 1,
      trainSeconds: 0,
    },
    metrics: {},
  };
}

describe("saveScorer", () => {
  it("two concurrent saves into one directory leave one complete, loadable artifact and no temporary files", async () => {
    for (let round = 0; round < 5; round++) {
      const dir = join(root, `concurrent ${round} ü`);
      await Promise.all([saveScorer(dir, artifact(1)), saveScorer(dir, artifact(2)), saveScorer(dir, artifact(3))]);
      const scorer = await loadScorer(dir, { encoder: null });
      expect((await scorer.predict(vec)).length).toBe(3);
      expect(readdirSync(dir).sort()).toEqual(["catalog.json", "manifest.json", "weights.bin"]);
    }
  });

  it("a failed write leaves neither a partial artifact nor temporary files, and keeps a previous artifact intact", async () => {
    const fresh = join(root, "failed fresh");
    failOn.name = "catalog.json";
    try {
      await expect(saveScorer(fresh, artifact(1))).rejects.toThrow(/ENOSPC/);
    } finally {
      failOn.name = undefined;
    }
    expect(readdirSync(fresh)).toEqual([]);

    const existing = join(root, "failed existing");
    await saveScorer(existing, artifact(1));
    const before = await (await loadScorer(existing, { encoder: null })).predict(vec);
    failOn.name = "manifest.json";
    try {
      await expect(saveScorer(existing, artifact(2))).rejects.toThrow(/ENOSPC/);
    } finally {
      failOn.name = undefined;
    }
    expect(readdirSync(existing).sort()).toEqual(["catalog.json", "manifest.json", "weights.bin"]);
    expect(await (await loadScorer(existing, { encoder: null })).predict(vec)).toEqual(before);
  });
});
