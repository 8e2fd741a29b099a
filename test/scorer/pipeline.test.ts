import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScorer, saveScorer } from "../../adapters/artifact/index.js";
import { trainScorerPipeline } from "../../adapters/artifact/train-pipeline.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { trainingRng } from "../../src/util/random.js";
import { TINY } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "irt-pipeline-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A deterministic toy encoder: hashed character trigrams, 16-d. */
const encoder: QueryEncoder = {
  id: "toy-trigram-16",
  dim: 16,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(16);
      for (let i = 0; i + 3 <= t.length; i++)
        v[(t.charCodeAt(i) * 31 + t.charCodeAt(i + 1) * 7 + t.charCodeAt(i + 2)) % 16]! += 1;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

/** Writes a your-own-data folder: 150 items over three topics, three models each strong on some topics. */
function writeToyFolder(name: string, seed: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const rng = trainingRng(seed);
  const topics = ["math", "law", "poetry"];
  const items = ["item_id,text,category"];
  const labels = ["item_id,model,correct"];
  for (let i = 0; i < 150; i++) {
    const topic = topics[i % 3]!;
    items.push(`q${i},"A ${topic} question number ${i} about ${topic}",${topic}`);
    ["alpha-model", "beta-model", "gamma-model"].forEach((m, k) => {
      const good = (k === 0 && topic === "math") || (k === 1 && topic === "law") || k === 2;
      labels.push(`q${i},${m},${rng.next() < (good ? 0.85 : 0.25) ? 1 : 0}`);
    });
  }
  writeFileSync(join(dir, "items.csv"), `${items.join("\n")}\n`);
  writeFileSync(join(dir, "labels.csv"), `${labels.join("\n")}\n`);
  return dir;
}

describe("training pipeline on a your-own-data folder", () => {
  it("trains, writes an artifact with test metrics and loads it back", async () => {
    const dir = writeToyFolder("toy-evals", 2);
    const { artifact, trained } = await trainScorerPipeline([dir], {
      encoder,
      cacheDir: join(root, "cache"),
      config: { ...TINY, maxEpochs: 4 },
      seed: 1,
    });
    expect(artifact.training.datasets[0]!.name).toBe("toy-evals");
    const test = artifact.metrics["toy-evals"]!.test!;
    expect(test.items).toBeGreaterThan(0);
    expect(test.routingAccuracy).toBeGreaterThanOrEqual(0);
    expect(trained.history.length).toBeGreaterThan(0);
    const out = await saveScorer(join(root, "artifact"), artifact);
    const scorer = await loadScorer(out, { encoder });
    const scores = await scorer.predict("A math question number 7 about math");
    expect(scores.map((s) => s.model)).toEqual(["alpha-model", "beta-model", "gamma-model"]);
    expect(scorer.manifest?.encoder).toEqual({ id: "toy-trigram-16", dim: 16 });
    // the known-model prior was fitted on the (model, category) groups of the train split and travels with the artifact
    expect(artifact.knownPrior?.groups).toBe(9);
    expect(artifact.knownPrior?.labels).toBe(3 * artifact.training.datasets[0]!.counts.train);
    expect(scorer.knownPrior).toEqual({ scale: artifact.knownPrior!.scale, shrinkage: 0.2 });
  });

  it("fits the known-model prior on all datasets' groups and on each dataset alone", async () => {
    const dirs = [writeToyFolder("toy-a", 3), writeToyFolder("toy-b", 4)];
    const { artifact } = await trainScorerPipeline(dirs, {
      encoder,
      cacheDir: join(root, "cache"),
      config: { ...TINY, maxEpochs: 2 },
      seed: 1,
      shareAbilities: false,
    });
    const prior = artifact.knownPrior!;
    expect(Object.keys(prior.byDataset ?? {}).sort()).toEqual(["toy-a", "toy-b"]);
    // 3 models x 3 topics per dataset; the pooled fit sees both datasets' groups (one ability row per model and dataset)
    expect(prior.byDataset!["toy-a"]!.groups).toBe(9);
    expect(prior.groups).toBe(18);
    expect(prior.byDataset!["toy-a"]!.labels + prior.byDataset!["toy-b"]!.labels).toBe(prior.labels);
    const loaded = await loadScorer(await saveScorer(join(root, "artifact-ab"), artifact), { encoder });
    expect(loaded.manifest?.knownPrior?.byDataset).toEqual(prior.byDataset);
  });
});
