import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { command as calibrate, loadCalibrationScorer } from "../../adapters/cli/commands/calibrate.js";
import { command as explain } from "../../adapters/cli/commands/explain.js";
import { embedDataset } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { buildProbeBank } from "../../adapters/learning/probe-bank.js";
import { EncoderMismatchError, EncoderUnavailableError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { TestEncoder } from "../data/test-encoder.js";
import { rejectedWith } from "../errors.js";
import { saveToyScorer, TOY_ARCH } from "../scorer/helpers.js";

// A scorer artifact built with an encoder the CLI does not have ("toy@1"), and a small probe dataset.
const tmp = mkdtempSync(join(tmpdir(), "irt-router-scorer-flags-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());
const folder = join(tmp, "probes");
mkdirSync(folder);
writeFileSync(
  join(folder, "items.csv"),
  "item_id,text\n" + Array.from({ length: 30 }, (_, i) => `q${i},question ${i}`).join("\n") + "\n",
);
writeFileSync(
  join(folder, "labels.csv"),
  "item_id,model,correct\n" + Array.from({ length: 30 }, (_, i) => `q${i},a,${i % 2}`).join("\n") + "\n",
);
const scorerDir = await saveToyScorer(join(tmp, "toy-scorer"), "toy@1", ["a", "b", "c"]);
const manifest = join(scorerDir, "manifest.json");

describe("calibrate --scorer with an artifact of another encoder than the default one", () => {
  it("is loaded without a text encoder when the probe dataset's vectors from its encoder are cached, and builds the probe bank from them", async () => {
    const cache = join(tmp, "cache-with-vectors");
    vi.stubEnv("IRT_ROUTER_CACHE", cache);
    await embedDataset(await loadDataset(folder), new TestEncoder("toy@1", TOY_ARCH.inDim), { cacheDir: cache });
    const scorer = await loadCalibrationScorer(scorerDir, () => loadDataset(folder));
    expect(scorer.encoder).toEqual({ id: "toy@1", dim: TOY_ARCH.inDim });
    await rejectedWith(EncoderUnavailableError, scorer.predict("some text")); // no text encoder: only the cached vectors are scored
    const { bank } = await buildProbeBank(scorer, await loadDataset(folder), {
      size: 10,
      cacheDir: join(tmp, "banks"),
    });
    expect(bank.ids).toHaveLength(10);
  });

  it("is refused when they are not cached, with advice for the command line (not the library's options.encoder)", async () => {
    vi.stubEnv("IRT_ROUTER_CACHE", join(tmp, "empty-cache"));
    const args = parseWith(
      calibrate.schema,
      { model: "new-model", budget: "3", replay: "a", probes: folder, scorer: scorerDir },
      "options",
    );
    const err = await rejectedWith(EncoderMismatchError, calibrate.run(args, []));
    expect(err).toMatchObject({
      code: "ENCODER_MISMATCH",
      file: manifest,
      path: "options.scorer",
      expected: { id: "toy@1" },
    });
    expect(err.message).toContain(`the embedding cache (${join(tmp, "empty-cache")}) has none of probes from "toy@1"`);
    expect(err.message).toMatch(
      /embedDataset\(dataset, encoder\).*give --scorer a scorer built with the default encoder/,
    );
    expect(err.message).not.toMatch(/options\.encoder/);
  });
});

describe("explain --model with an artifact of another encoder than the default one", () => {
  it("is refused with advice for the command line", async () => {
    const args = parseWith(explain.schema, { model: scorerDir }, "options");
    const err = await rejectedWith(EncoderMismatchError, explain.run(args, ["What is 2+2?"]));
    expect(err).toMatchObject({ code: "ENCODER_MISMATCH", file: manifest, path: "options.model" });
    expect(err.message).toMatch(
      /irt-router explain embeds the text with the static encoder or USE-lite only, and this scorer was built with "toy@1": give --model a scorer built with one of them/,
    );
    expect(err.message).not.toMatch(/options\.encoder/);
  });
});
