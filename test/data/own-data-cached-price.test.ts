import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadOwnDataFolder, writeOwnDataFolder } from "../../adapters/data/own-data.js";
import { DatasetFormatError } from "../../src/errors.js";

const root = mkdtempSync(join(tmpdir(), "irt-router-own-cached-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function folder(models: string): string {
  const dir = join(root, `case${counter++}`, "ds");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "items.csv"), "item_id,text\nq1,What is 2+2?\n");
  writeFileSync(join(dir, "labels.csv"), "item_id,model,correct\nq1,big,1\nq1,small,0\n");
  writeFileSync(join(dir, "models.csv"), models);
  return dir;
}

describe("your-own-data models.csv: cached_input_usd_per_1m", () => {
  it("reads the optional cached-input price, and writes it back", async () => {
    const ds = await loadOwnDataFolder(
      folder("model,input_usd_per_1m,output_usd_per_1m,cached_input_usd_per_1m\nbig,3,15,0.3\nsmall,0.2,0.2,\n"),
    );
    expect(ds.prices).toEqual({
      big: { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 },
      small: { inputPer1M: 0.2, outputPer1M: 0.2 },
    });
    const out = join(root, `out${counter++}`, "ds");
    mkdirSync(out, { recursive: true });
    await writeOwnDataFolder(ds, out);
    expect((await loadOwnDataFolder(out)).prices).toEqual(ds.prices);
  });

  it.each([
    ["above the input price", "big,3,15,4\n", /must not exceed "input_usd_per_1m"/],
    ["negative", "big,3,15,-1\n", /"cached_input_usd_per_1m" must be a number >= 0/],
    ["without the other prices", "big,,,0.1\n", /without "input_usd_per_1m"/],
  ])("rejects a cached-input price %s, naming the line", async (_case, row, message) => {
    const dir = folder(`model,input_usd_per_1m,output_usd_per_1m,cached_input_usd_per_1m\n${row}small,1,1,\n`);
    const error = await loadOwnDataFolder(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatasetFormatError);
    expect((error as DatasetFormatError).message).toMatch(message);
    expect((error as DatasetFormatError).message).toMatch(/models\.csv line 2/);
  });
});
