import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset, resolveDataset } from "../../adapters/data/load-dataset.js";

// Names that are keys of Object.prototype (constructor, toString, __proto__) are names like any other: a folder, a
// column or a model so named must load as documented or be refused with the file and line, never crash.

const root = mkdtempSync(join(tmpdir(), "irt-router-js-keys-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function folder(files: Record<string, string>, name = "evals"): string {
  const dir = join(root, `case${counter++}`, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

const ITEMS = "item_id,text\nq1,What is 2+2?\nq2,Capital of France?\n";
const LABELS = "item_id,model,correct\nq1,m1,1\nq1,m2,0\nq2,m1,0.5\n";

describe("a folder named after an Object.prototype key", () => {
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    it(`"${name}" loads as a your-own-data folder`, async () => {
      const dir = folder({ "items.csv": ITEMS, "labels.csv": LABELS }, name);
      expect(resolveDataset(dir).kind).toBe("own-data");
      const ds = await loadDataset(dir);
      expect(ds.name).toBe(name);
      expect(ds.models).toEqual(["m1", "m2"]);
      expect(ds.items.map((i) => i.id)).toEqual(["q1", "q2"]);
    });
  }
});
