import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { DatasetFormatError, type IrtRouterError } from "../../src/errors.js";

// loadRunTable: a folder whose items are agent runs, as the run-level replay's table.

const root = mkdtempSync(join(tmpdir(), "irt-router-run-table-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function folder(files: Record<string, string>): string {
  const dir = join(root, `case${counter++}`, "runs");
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

async function refused(dir: string): Promise<IrtRouterError> {
  try {
    await loadRunTable(dir);
  } catch (error) {
    return error as IrtRouterError;
  }
  throw new Error("expected the folder to be refused");
}

const ids = Array.from({ length: 6 }, (_, i) => `t${i}`);
const ITEMS = `item_id,text\n${ids.map((id) => `${id},Fix ${id}`).join("\n")}\n`;
const MODELS = ["a", "b", "c", "d"];
const PRICES = "model,input_usd_per_1m,output_usd_per_1m\na,5,25\nb,1,4\nc,0.5,2\nd,0.1,0.4\n";

/** Labels for every (task, model); cost_usd 0.5 on a, b and c, blank on d. */
function labelsWithCosts(): string {
  const rows = ids.flatMap((id, i) => MODELS.map((m) => `${id},${m},${i % 2},${m === "d" ? "" : "0.5"}`));
  return `item_id,model,correct,cost_usd\n${rows.join("\n")}\n`;
}

describe("loadRunTable: run costs given for some models only", () => {
  it("keeps the recorded costs and prices only the model without one (models.csv given)", async () => {
    const t = await loadRunTable(folder({ "items.csv": ITEMS, "labels.csv": labelsWithCosts(), "models.csv": PRICES }));
    expect(Array.from(t.runCost.slice(0, 3))).toEqual([0.5, 0.5, 0.5]); // recorded, not a's list price (3 USD)
    expect(t.runCost[3]).toBeCloseTo((400_000 * 0.1 + 40_000 * 0.4) / 1e6, 12);
    expect(t.costAssumption).toMatch(/recorded cost_usd .* for a, b, c; 400,000 input .* for d$/);
  });

  it("without models.csv, names only the model with neither a cost nor a price, and no file that is not there", async () => {
    const dir = folder({ "items.csv": ITEMS, "labels.csv": labelsWithCosts() });
    const error = await refused(dir);
    expect(error).toBeInstanceOf(DatasetFormatError);
    expect(error.message).toMatch(/no run cost for d \(1 of 4 models\)/);
    expect(error.message).toMatch(/add a models\.csv \(model,input_usd_per_1m,output_usd_per_1m\) listing its prices/);
    expect(error.details).toEqual({ missing: ["d"] });
    expect(error.file).toBe(dir);
  });

  it("with a models table lacking a price, names that table", async () => {
    const prices = "model,input_usd_per_1m,output_usd_per_1m\na,5,25\nb,1,4\nc,0.5,2\nd,,\n";
    const dir = folder({ "items.csv": ITEMS, "labels.csv": labelsWithCosts(), "models.csv": prices });
    const error = await refused(dir);
    expect(error.message).toMatch(
      /no run cost for d \(1 of 4 models\).*input_usd_per_1m and output_usd_per_1m in models\.csv\./,
    );
    expect(error.file).toBe(join(dir, "models.csv"));
  });
});
