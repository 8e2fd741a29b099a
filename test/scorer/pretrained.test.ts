import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPretrained, pretrainedDir } from "../../adapters/artifact/index.js";
import { ARTIFACT_FORMAT_VERSION, manifestChecksum } from "../../src/scorer/serialize.js";
import { OnlineLearner } from "../../src/learning/index.js";

describe("the shipped pretrained artifact", () => {
  it("loads offline with a known-model prior fitted on its training labels", async () => {
    const scorer = await loadPretrained(); // verifies lengths and shapes; the encoder is not loaded
    expect(scorer.models.length).toBe(49);
    const record = scorer.manifest!.knownPrior!;
    expect(scorer.knownPrior).toEqual({ scale: record.scale, shrinkage: record.shrinkage });
    // an interior maximum of the evidence, not the end of the search range
    expect(record.atBoundary).toBe(false);
    const best = Math.max(...record.curve.map((c) => c.logEvidence));
    expect(record.curve[0]!.logEvidence).toBeLessThan(best);
    expect(record.curve.at(-1)!.logEvidence).toBeLessThan(best);
    expect(Object.keys(record.byDataset ?? {}).sort()).toEqual([
      "mmlu-pro-29models",
      "routellm-2models",
      "routerbench-subset-11models",
      "routerdc-7models",
    ]);
    const groups = Object.values(record.byDataset!).reduce((n, f) => n + f.groups, 0);
    expect(groups).toBe(record.groups);
    // forScorer starts catalogued models at the fitted scale: wider than the fixed default by scale / 0.05
    const alpha = new Float32Array(scorer.abilityDim).fill(0.1);
    const id = scorer.models[0]!.id;
    const variance = (l: OnlineLearner) => l.posterior(id).logit(alpha, 0).variance;
    expect(variance(OnlineLearner.forScorer(scorer)) / variance(new OnlineLearner(scorer.models))).toBeCloseTo(
      record.scale / 0.05,
      6,
    );
  });

  it("is in the current artifact format, its manifest protected by its own checksum", () => {
    const manifest = JSON.parse(readFileSync(join(pretrainedDir(), "manifest.json"), "utf8")) as {
      formatVersion: number;
      manifestSha256?: string;
    };
    expect(manifest.formatVersion).toBe(ARTIFACT_FORMAT_VERSION);
    expect(manifest.manifestSha256).toBe(manifestChecksum(manifest));
  });
});
