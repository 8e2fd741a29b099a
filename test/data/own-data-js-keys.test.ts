import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset, resolveDataset } from "../../adapters/data/load-dataset.js";
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";
import { DatasetFormatError, type IrtRouterError } from "../../src/errors.js";

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

async function loadError(files: Record<string, string>): Promise<IrtRouterError> {
  try {
    await loadOwnDataFolder(folder(files));
  } catch (error) {
    return error as IrtRouterError;
  }
  throw new Error("expected the folder to be refused");
}

describe("columns named after Object.prototype keys", () => {
  it("an items column constructor / toString / __proto__ loads into meta (no false 'appears twice')", async () => {
    const items = "item_id,text,constructor,toString,__proto__\nq1,hi,a,b,c\nq2,yo,d,e,f\n";
    const ds = await loadOwnDataFolder(folder({ "items.csv": items, "labels.csv": LABELS }));
    expect(ds.items[0]!.meta).toEqual({ constructor: "a", toString: "b", ["__proto__"]: "c" });
    expect(Object.keys(ds.items[1]!.meta!)).toEqual(["constructor", "toString", "__proto__"]);
    expect(Object.getPrototypeOf(ds.items[1]!.meta)).toBe(Object.prototype); // a key, not the prototype
  });

  it("a labels column so named is an unknown column, not a repeated one", async () => {
    const error = await loadError({
      "items.csv": ITEMS,
      "labels.csv": "item_id,model,correct,constructor\nq1,m1,1,x\n",
    });
    expect(error).toBeInstanceOf(DatasetFormatError);
    expect(error.message).toMatch(/labels\.csv line 1: unknown column "constructor"/);
  });
});

describe('a model named "__proto__"', () => {
  const MODELS = "model,input_usd_per_1m,output_usd_per_1m\nm1,1,1\n__proto__,2,2\n";
  it("is refused at its models.csv line, naming the column and value", async () => {
    const labels = "item_id,model,correct\nq1,m1,1\nq1,__proto__,0\n";
    const error = await loadError({ "items.csv": ITEMS, "labels.csv": labels, "models.csv": MODELS });
    expect(error).toBeInstanceOf(DatasetFormatError);
    expect(error.file?.endsWith("/models.csv")).toBe(true);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/models\.csv line 3: "model" "__proto__" cannot name a model/);
  });

  it("is refused at its labels line without a models table, in CSV and JSONL", async () => {
    const csv = await loadError({
      "items.csv": ITEMS,
      "labels.csv": "item_id,model,correct\nq1,m1,1\nq2,__proto__,0\n",
    });
    expect(csv).toBeInstanceOf(DatasetFormatError);
    expect(csv.file?.endsWith("/labels.csv")).toBe(true);
    expect(csv.line).toBe(3);
    expect(csv.details).toMatchObject({ column: "model", value: "__proto__" });
    const jsonl = await loadError({
      "items.csv": ITEMS,
      "labels.jsonl": '{"item_id":"q1","model":"__proto__","correct":1}\n',
    });
    expect(jsonl.file?.endsWith("/labels.jsonl")).toBe(true);
    expect(jsonl.line).toBe(1);
  });

  it("a model merely containing it, or named constructor, loads", async () => {
    const labels = "item_id,model,correct\nq1,constructor,1\nq1,x__proto__,0\n";
    const ds = await loadOwnDataFolder(folder({ "items.csv": ITEMS, "labels.csv": labels }));
    expect(ds.models).toEqual(["constructor", "x__proto__"]);
  });
});
