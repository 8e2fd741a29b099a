import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../adapters/cli/main.js";
import { Progress } from "../../adapters/progress.js";
import { predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { embedDataset } from "../../adapters/data/embedding-cache.js";
import { embedForEval } from "../../adapters/eval/embed.js";
import { CsrBuilder } from "../../src/data/csr.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { TestEncoder } from "../data/test-encoder.js";
import { Sink } from "./sink.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-cli-output-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("CLI output", () => {
  it("irt-router --version prints the package version", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await main(["--version"])).toBe(0);
      const { version } = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string };
      expect(out.mock.calls.map((c) => String(c[0])).join("")).toBe(`${version}\n`);
    } finally {
      out.mockRestore();
    }
  });

  it("off a TTY, a finished progress bar prints its last line once", () => {
    const sink = new Sink();
    const bar = new Progress({ label: "work", total: 3, unit: "items", stream: sink });
    bar.update(3);
    bar.finish();
    expect(sink.text.trim().split("\n")).toHaveLength(1);
    bar.finish("done"); // a new status is shown
    expect(sink.text.trim().split("\n")).toHaveLength(2);
  });

  it("eval's embeddings served from the cache are said to be, once, with no rate", async () => {
    const b = new CsrBuilder(false);
    for (let i = 0; i < 4; i++) {
      b.add(0, 1);
      b.endItem();
    }
    const ds: CorrectnessDataset = {
      name: "tiny",
      models: ["m"],
      items: Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, text: `text ${i}` })),
      labels: b.build(),
      source: { dir: "/nowhere", files: [], sha256: "0".repeat(64) },
    };
    const predicted = (await predictedDefaultEncoder())!;
    const cacheDir = join(tmp, "cache");
    await embedDataset(ds, new TestEncoder(predicted.id, predicted.dim), { cacheDir });
    vi.stubEnv("IRT_ROUTER_CACHE", cacheDir);
    try {
      const log = new Sink();
      const got = await embedForEval(ds, log);
      expect(got.fromCache).toBe(true);
      expect(log.text).toMatch(/^embedding tiny: 4 texts served from the cache \(.*\)\n$/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
