import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { loadPretrained } from "../../adapters/artifact/load.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";
import { modelMeans } from "../../src/data/csr.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { currentModels, lookupKey, type ModelCatalog } from "../../src/scorer/model-catalog.js";
import { MODEL_CATALOG_DATA } from "../../src/scorer/model-catalog-data.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { MODELS } from "../../scripts/model-catalog/spec.js";

const logit = (pct: number) => Math.log(pct / (100 - pct));
let catalog: ModelCatalog;
let scorer: IrtMoeScorer;
let tb: CorrectnessDataset;

beforeAll(async () => {
  catalog = await currentModels();
  scorer = await loadPretrained({ encoder: await StaticEncoder.load() });
  tb = await loadDataset("terminal-bench-2-32models");
});

describe("the catalog of current models", () => {
  it("has the model lines people route between today", () => {
    const ids = new Set(catalog.models.map((m) => m.id));
    for (const id of [
      "gpt-4o",
      "gpt-4o-mini",
      "gpt-4.1",
      "gpt-4.1-mini",
      "gpt-4.1-nano",
      "o3",
      "o4-mini",
      "gpt-5",
      "gpt-5-mini",
      "gpt-5-nano",
      "gpt-5-codex",
      "claude-3-5-sonnet",
      "claude-3-7-sonnet",
      "claude-sonnet-4",
      "claude-opus-4",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-opus-4-5",
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "gemini-2.5-pro",
      "gemini-2.5-flash",
      "gemini-3-pro",
      "gemini-3-flash",
      "llama-3.3-70b-instruct",
      "llama-4-maverick",
      "mistral-large",
      "qwen3-235b-a22b",
      "deepseek-v3",
      "deepseek-r1",
      "kimi-k2-instruct",
      "glm-4.6",
      "grok-4",
    ])
      expect(ids.has(id), id).toBe(true);
  });

  it("resolves provider prefixes, dated snapshots, -latest, Vertex and Bedrock names", () => {
    const cases: [string, string][] = [
      ["openai/gpt-4o", "gpt-4o"],
      ["openai:gpt-4o-2024-08-06", "gpt-4o"],
      ["anthropic:claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
      ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5"],
      ["anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"],
      ["claude-3-5-sonnet-latest", "claude-3-5-sonnet"],
      ["Claude-Haiku-4-5", "claude-haiku-4-5"],
      ["models/gemini-2.5-pro", "gemini-2.5-pro"],
      ["google/gemini-3-pro-preview", "gemini-3-pro"],
      ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b-instruct"],
      ["mistral-large-latest", "mistral-large"],
      ["deepseek-ai/DeepSeek-R1", "deepseek-r1"],
      ["x-ai/grok-4", "grok-4"],
    ];
    for (const [name, id] of cases) expect(catalog.resolve(name)?.id, name).toBe(id);
    expect(lookupKey("anthropic:claude-sonnet-4-5@20250929")).toBe("claude-sonnet-4-5-20250929");
  });

  it("never matches an anonymous replay name (m01, m02, ...) nor shadows a row of the pretrained scorer", () => {
    for (let k = 0; k < 1000; k++) {
      for (const name of [`m${k}`, `m${String(k).padStart(2, "0")}`, `M${String(k).padStart(3, "0")}`]) {
        expect(catalog.resolve(name), name).toBeUndefined();
        expect(catalog.resolve(`openai/${name}`), name).toBeUndefined();
      }
    }
    for (const row of scorer.models)
      for (const name of [row.id, ...row.aliases]) expect(catalog.resolve(name), name).toBeUndefined();
  });

  it("prices per 1M tokens with cached input no dearer than input", () => {
    for (const m of catalog.models) {
      expect(m.price.inputPer1M, m.id).toBeGreaterThan(0);
      expect(m.price.outputPer1M, m.id).toBeGreaterThanOrEqual(m.price.inputPer1M);
      if (m.price.cachedInputPer1M !== undefined)
        expect(m.price.cachedInputPer1M, m.id).toBeLessThanOrEqual(m.price.inputPer1M);
    }
  });

  it("is the build of the spec: same models, the same evidence behind each prior", () => {
    expect(MODEL_CATALOG_DATA.models.map((m) => m.id)).toEqual(MODELS.map((s) => s.id));
    const kind = { published: "published", "terminal-bench": "terminal-bench", "family-tier": "family-tier" };
    MODELS.forEach((s, i) => expect(MODEL_CATALOG_DATA.models[i]!.prior.method, s.id).toBe(kind[s.evidence.kind]));
    for (const s of MODELS)
      if (s.evidence.kind === "published")
        expect(catalog.resolve(s.id)!.prior.mmluEquivalent, s.id).toBeCloseTo(s.evidence.published.score, 6);
  });
});

describe("priors against the data", () => {
  it("respect terminal-bench's order of success rates up to the stated uncertainty", () => {
    const rate = new Map(modelMeans(tb).map((r) => [r.model, r.mean]));
    const onTb = MODELS.filter((s) => s.evidence.kind === "terminal-bench").map((s) => ({
      id: s.id,
      rate: rate.get((s.evidence as { column: string }).column)!,
      prior: catalog.resolve(s.id)!.prior,
    }));
    expect(onTb.length).toBe(32);
    let checked = 0;
    for (const a of onTb)
      for (const b of onTb) {
        if (!(a.rate > b.rate)) continue;
        const gap = logit(a.prior.mmluEquivalent) - logit(b.prior.mmluEquivalent);
        expect(gap, `${a.id} (${a.rate}) vs ${b.id} (${b.rate})`).toBeGreaterThan(
          -2 * Math.hypot(a.prior.logitSd, b.prior.logitSd),
        );
        checked++;
      }
    expect(checked).toBeGreaterThan(400);
    // Rank agreement, not only within the uncertainty: Spearman's rho of prior vs success rate.
    const rank = (xs: number[]) =>
      xs.map((x) => xs.filter((y) => y < x).length + (xs.filter((y) => y === x).length - 1) / 2);
    const rr = rank(onTb.map((m) => m.rate));
    const rp = rank(onTb.map((m) => m.prior.mmluEquivalent));
    const n = onTb.length;
    const rho = 1 - (6 * rr.reduce((s, r, i) => s + (r - rp[i]!) ** 2, 0)) / (n * (n * n - 1));
    expect(rho).toBeGreaterThan(0.95);
  });

  it("place a published score where the scorer's own anchor rows put it", async () => {
    // gpt-4-1106-preview is a scorer row (RouterBench) with a published MMLU of 84.7: a catalog model placed at that
    // score must predict like the row, within the scale's stated anchor uncertainty.
    const scale = catalog.scaleFor(scorer)!;
    expect(scale).toBeDefined();
    const row = scorer.ability("gpt-4-1106-preview");
    const fake = { ...catalog.models.find((m) => m.id === "gpt-4o")! };
    const placed = catalog.priorOn({ ...fake, prior: { ...fake.prior, mmluEquivalent: 84.7 } }, scorer)!;
    const prompts = ["What is 17 * 23?", "Prove that sqrt(2) is irrational.", "Write a haiku about rain.", "hello"];
    let diff = 0;
    for (const text of prompts) {
      const item = await scorer.itemParams(text);
      let z = 0;
      for (let k = 0; k < row.length; k++) z += (item.alpha[k]! * (placed.ability[k]! - row[k]!)) / scorer.temperature;
      diff += z / prompts.length;
    }
    expect(Math.abs(diff)).toBeLessThan(3 * scale.anchorSd + 0.15);
  });

  it("order the strong models above their small siblings", () => {
    // Not by more than the stated sd: for two models of one table most of it is the shared link to the MMLU scale.
    for (const [big, small] of [
      ["gpt-4o", "gpt-4o-mini"],
      ["claude-sonnet-4-5", "claude-haiku-4-5"],
      ["gpt-5", "gpt-5-mini"],
      ["gpt-4.1", "gpt-4.1-nano"],
    ] as const) {
      const a = catalog.resolve(big)!.prior;
      const b = catalog.resolve(small)!.prior;
      expect(logit(a.mmluEquivalent) - logit(b.mmluEquivalent), `${big} vs ${small}`).toBeGreaterThan(0.3);
    }
  });

  it("are not fitted for a custom scorer: no scale, so the router warns instead of guessing", () => {
    const custom = { encoder: { id: "toy" }, models: scorer.models.slice(0, 3) };
    expect(catalog.scaleFor(custom)).toBeUndefined();
    expect(catalog.priorOn(catalog.resolve("gpt-4o")!, custom)).toBeUndefined();
  });
});
