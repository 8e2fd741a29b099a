import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { dataRootCandidates, packageRoot } from "../../adapters/data/data-root.js";
import { loadDataset, resolveDataset } from "../../adapters/data/load-dataset.js";
import { DatasetNotFoundError, ValidationError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";

const here = dirname(fileURLToPath(import.meta.url));
const project = resolve(here, "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "irt-router-data-root-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/** A data root holding a tiny your-own-data dataset named `tiny` whose only item text is `text`. */
function root(name: string, text: string): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, "tiny"), { recursive: true });
  writeFileSync(join(dir, "tiny", "items.csv"), `item_id,text\n1,${text}\n`);
  writeFileSync(join(dir, "tiny", "labels.csv"), "item_id,model,correct\n1,m,1\n");
  return dir;
}
const optionRoot = root("option-root", "from option");
const envRoot = root("env-root", "from env");
const notFound = (fn: () => unknown) => thrownBy(DatasetNotFoundError, fn);

describe("data root resolution", () => {
  it("orders --data-root, then IRT_ROUTER_DATA, then ../shared/data beside the package (not the cwd)", () => {
    expect(packageRoot()).toBe(project);
    const candidates = dataRootCandidates({ dataRoot: optionRoot, env: { IRT_ROUTER_DATA: envRoot } });
    expect(candidates).toEqual([
      { dir: optionRoot, from: "option" },
      { dir: envRoot, from: "env" },
      { dir: resolve(project, "..", "shared", "data"), from: "default" },
    ]);
    expect(dataRootCandidates({ env: {} })).toEqual([
      { dir: resolve(project, "..", "shared", "data"), from: "default" },
    ]);
  });

  it("the option wins over the environment, which wins over the default", async () => {
    expect(
      (await loadDataset("tiny", { dataRoot: optionRoot, env: { IRT_ROUTER_DATA: envRoot } })).items[0]!.text,
    ).toBe("from option");
    expect((await loadDataset("tiny", { env: { IRT_ROUTER_DATA: envRoot } })).items[0]!.text).toBe("from env");
    // An option root without the dataset falls through to the next place.
    expect((await loadDataset("tiny", { dataRoot: tmp, env: { IRT_ROUTER_DATA: envRoot } })).items[0]!.text).toBe(
      "from env",
    );
  });

  it("reads IRT_ROUTER_DATA from process.env by default", () => {
    vi.stubEnv("IRT_ROUTER_DATA", envRoot);
    expect(resolveDataset("tiny").dir).toBe(join(envRoot, "tiny"));
  });

  it("finds the real datasets through the default root, and a folder path directly", () => {
    const found = resolveDataset("routerbench-subset-11models", { env: {} });
    expect(found).toEqual({
      dir: resolve(project, "..", "shared", "data", "routerbench-subset-11models"),
      kind: "builtin",
    });
    expect(resolveDataset(join(optionRoot, "tiny"), { env: {} })).toEqual({
      dir: join(optionRoot, "tiny"),
      kind: "own-data",
    });
  });

  it("a dataset found nowhere lists every place it looked and how to point at the data", () => {
    const missing = join(tmp, "does-not-exist");
    const error = notFound(() => resolveDataset("nope", { dataRoot: optionRoot, env: { IRT_ROUTER_DATA: missing } }));
    expect(error.code).toBe("DATASET_NOT_FOUND");
    expect(error.message).toContain(join(missing, "nope"));
    expect(error.message).toContain(join(optionRoot, "nope"));
    expect(error.message).toContain(resolve(project, "..", "shared", "data", "nope"));
    expect(error.message).toMatch(/data root does not exist/);
    expect(error.message).toContain("--data-root");
    expect(error.message).toContain("IRT_ROUTER_DATA");
    // The three roots, then a folder of that name in the current directory.
    expect((error.details as { tried: string[] }).tried).toHaveLength(4);
  });

  it("an explicit data root that is not a folder is refused, not passed over for another root", () => {
    const error = thrownBy(ValidationError, () =>
      resolveDataset("tiny", { dataRoot: join(tmp, "typo-root"), env: { IRT_ROUTER_DATA: envRoot } }),
    );
    expect(error.path).toBe("options.dataRoot");
    expect(error.message).toContain(join(tmp, "typo-root"));
  });

  it("a path that is not a dataset folder says so", () => {
    expect(notFound(() => resolveDataset(join(tmp, "nowhere"))).message).toMatch(/no such folder/);
    expect(notFound(() => resolveDataset(tmp)).message).toMatch(
      /neither one of the four known datasets nor a your-own-data folder/,
    );
    // A folder named like a built-in dataset but without its files is skipped (and reported if nothing matches).
    mkdirSync(join(tmp, "fake", "mmlu-pro-29models"), { recursive: true });
    const error = notFound(() => resolveDataset(join(tmp, "fake", "mmlu-pro-29models")));
    expect(error.message).toMatch(/neither one of the four known datasets/);
    expect(resolveDataset("mmlu-pro-29models", { dataRoot: join(tmp, "fake"), env: {} }).dir).toBe(
      resolve(project, "..", "shared", "data", "mmlu-pro-29models"),
    );
  });

  it("a bare name falls back to a folder of the current directory only after every data root", () => {
    const cwd = process.cwd();
    process.chdir(optionRoot);
    try {
      expect(resolveDataset("tiny", { env: {} }).dir).toBe(join(optionRoot, "tiny"));
      expect(resolveDataset("tiny", { env: { IRT_ROUTER_DATA: envRoot } }).dir).toBe(join(envRoot, "tiny"));
    } finally {
      process.chdir(cwd);
    }
  });

  it("an empty name is refused", () => {
    expect(notFound(() => resolveDataset(" ")).message).toMatch(/No dataset given/);
  });
});

describe("argument validation", () => {
  it("a non-string dataset is a ValidationError naming the argument", async () => {
    await expect(loadDataset(42 as never)).rejects.toThrow(/Invalid dataset/);
    await expect(loadDataset("tiny", { dataRoot: "" })).rejects.toThrow(/options.dataRoot/);
  });
});
