import { describe, expect, it } from "vitest";
import { loadPretrained, loadScorer, pretrainedDir, STATIC_PRETRAINED_SUBDIR } from "../../adapters/artifact/index.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";
import { EncoderMismatchError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";
import { join } from "node:path";

const DATASETS = ["mmlu-pro-29models", "routellm-2models", "routerbench-subset-11models", "routerdc-7models"];

describe("the pretrained scorer of the static encoder", () => {
  it("loads with the shipped StaticEncoder and scores text offline", async () => {
    const scorer = await loadPretrained({ encoder: "static" });
    const encoder = await StaticEncoder.load();
    expect(scorer.encoder).toEqual({ id: encoder.id, dim: encoder.dim });
    expect(scorer.models.length).toBe(49);
    const scores = await scorer.predict("Prove that the square root of 2 is irrational.");
    expect(scores).toHaveLength(49);
    for (const s of scores) {
      expect(s.p).toBeGreaterThan(0);
      expect(s.p).toBeLessThan(1);
    }
    // the same scorer through a StaticEncoder object
    const viaObject = await loadPretrained({ encoder });
    expect(viaObject.encoder.id).toBe(encoder.id);
  });

  it("records each dataset's test metrics in its manifest", async () => {
    const scorer = await loadPretrained({ encoder: "static" });
    const metrics = scorer.manifest!.metrics as Record<string, { test: { auc: number; routingAccuracy: number } }>;
    expect(Object.keys(metrics).sort()).toEqual(DATASETS);
    for (const name of DATASETS) {
      expect(metrics[name]!.test.auc).toBeGreaterThan(0.6);
      expect(metrics[name]!.test.routingAccuracy).toBeGreaterThan(0.5);
    }
  });

  it("refuses another encoder, naming its manifest", async () => {
    const other = {
      id: "use-lite-512@model-embeddings-en-0.2.0",
      dim: 512,
      embed: async (t: string[]) => t.map(() => new Float32Array(512)),
    };
    const dir = join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR);
    const error = await rejectedWith(EncoderMismatchError, loadScorer(dir, { encoder: other }));
    expect(error.file).toBe(join(dir, "manifest.json"));
  });
});
