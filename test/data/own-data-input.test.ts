import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";
import { DatasetFormatError, DatasetNotFoundError, type IrtRouterError } from "../../src/errors.js";

// Input the loader must refuse rather than silently drop or alter (review of the your-own-data loader).

const root = mkdtempSync(join(tmpdir(), "irt-router-own-input-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function folder(files: Record<string, string | Buffer>): string {
  const dir = join(root, `case${counter++}`, "evals");
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

const ITEMS = "item_id,text\nq1,What is 2+2?\nq2,Capital of France?\n";
const LABELS = "item_id,model,correct\nq1,m1,1\nq1,m2,0\nq2,m1,0.5\n";
const MODELS = "model,input_usd_per_1m,output_usd_per_1m\ngpt-4o,2.5,10\nllama-3-8b,0.2,0.2\n";
const ITEMS_JSONL = '{"item_id":"q1","text":"hi"}\n{"item_id":"q2","text":"yo"}\n';
const LABELS_JSONL = '{"item_id":"q1","model":"m1","correct":1}\n';

async function loadError(files: Record<string, string | Buffer>, load = loadOwnDataFolder): Promise<IrtRouterError> {
  try {
    await load(folder(files));
  } catch (error) {
    return error as IrtRouterError;
  }
  throw new Error("expected the folder to be refused");
}

/** Loading fails with a DatasetFormatError on `file` (and `line`, when given) whose message matches. */
async function expectFormatError(
  files: Record<string, string | Buffer>,
  file: string,
  line: number | undefined,
  message: RegExp,
): Promise<void> {
  const error = await loadError(files);
  expect(error, String(error)).toBeInstanceOf(DatasetFormatError);
  expect(error.file?.endsWith(`/${file}`), `${error.file} should be ${file}`).toBe(true);
  expect(error.line).toBe(line);
  expect(error.message).toMatch(message);
  expect(error.message).toContain(file);
}

describe("encoding: only UTF-8 is read, nothing is replaced", () => {
  it("rejects a Latin-1 file naming file and line instead of loading caf\\uFFFD", async () => {
    const latin1 = Buffer.from("item_id,text\nq1,caf\xe9 cr\xe8me\nq2,x\n", "latin1");
    await expectFormatError(
      { "items.csv": latin1, "labels.csv": LABELS },
      "items.csv",
      2,
      /not UTF-8.*Re-save it as UTF-8/,
    );
    await expectFormatError({ "items.csv.gz": gzipSync(latin1), "labels.csv": LABELS }, "items.csv.gz", 2, /not UTF-8/);
    const labels = Buffer.from(`${LABELS}q2,mod\xe8le,1\n`, "latin1");
    await expectFormatError({ "items.csv": ITEMS, "labels.jsonl": labels }, "labels.jsonl", 5, /not UTF-8/);
  });

  it("says a UTF-16 file is UTF-16", async () => {
    const utf16 = Buffer.from(`\ufeff${ITEMS}`, "utf16le");
    await expectFormatError(
      { "items.csv": utf16, "labels.csv": LABELS },
      "items.csv",
      1,
      /is UTF-16.*re-save it as UTF-8/,
    );
  });

  it("still loads UTF-8 with non-ASCII text exactly", async () => {
    const ds = await loadOwnDataFolder(
      folder({ "items.csv": "item_id,text\nq1,café crème 日本\n", "labels.csv": "item_id,model,correct\nq1,m,1\n" }),
    );
    expect(ds.items[0]!.text).toBe("café crème 日本");
  });
});

describe("empty tables are refused, naming the file", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["header-only items.csv", { "items.csv": "item_id,text\n", "labels.csv": "item_id,model,correct\n" }, "items.csv"],
    ["header-only labels.csv", { "items.csv": ITEMS, "labels.csv": "item_id,model,correct\n" }, "labels.csv"],
    [
      "header-only models.csv",
      { "items.csv": ITEMS, "labels.csv": LABELS, "models.csv": "model,input_usd_per_1m,output_usd_per_1m\n" },
      "models.csv",
    ],
    ["0-byte items.jsonl", { "items.jsonl": "", "labels.jsonl": "" }, "items.jsonl"],
    ["0-byte labels.jsonl", { "items.jsonl": ITEMS_JSONL, "labels.jsonl": "" }, "labels.jsonl"],
    ["blank-lines-only labels.jsonl", { "items.jsonl": ITEMS_JSONL, "labels.jsonl": "\n  \n\r\n" }, "labels.jsonl"],
  ];
  for (const [what, files, file] of cases) {
    it(what, async () => {
      await expectFormatError(files, file, undefined, /needs at least one row/);
    });
  }
});

describe("model and item ids", () => {
  it("with a models table, a label for an unlisted model is an error naming the labels line and the closest model", async () => {
    const labels = "item_id,model,correct\nq1,gpt-4o,1\nq2,llama-3-8b,0\nq2,gpt-4,1\n";
    await expectFormatError(
      { "items.csv": ITEMS, "labels.csv": labels, "models.csv": MODELS },
      "labels.csv",
      4,
      /model "gpt-4" is not listed in models.csv \(did you mean "gpt-4o"\?\)/,
    );
    const far = "item_id,model,correct\nq1,gpt-4o,1\nq1,mistral-large,1\n";
    const error = await loadError({ "items.csv": ITEMS, "labels.csv": far, "models.csv": MODELS });
    expect(error.message).toMatch(/"mistral-large" is not listed in models.csv\. Fix the name, or add a row/);
    await expectFormatError(
      {
        "items.jsonl": ITEMS_JSONL,
        "labels.jsonl": '{"item_id":"q1","model":"m2","correct":1}\n',
        "models.jsonl": '{"model":"m1","input_usd_per_1m":1,"output_usd_per_1m":1}\n',
      },
      "labels.jsonl",
      1,
      /"m2" is not listed in models.jsonl \(did you mean "m1"\?\)/,
    );
  });

  it("with a models table listing every labelled model, loads in the models table's order (unlabelled models kept)", async () => {
    const labels = "item_id,model,correct\nq1,llama-3-8b,1\nq2,llama-3-8b,0\n";
    const ds = await loadOwnDataFolder(folder({ "items.csv": ITEMS, "labels.csv": labels, "models.csv": MODELS }));
    expect(ds.models).toEqual(["gpt-4o", "llama-3-8b"]);
    expect(Object.keys(ds.prices ?? {})).toEqual(["gpt-4o", "llama-3-8b"]);
  });

  it("without a models table, the models are those of the labels in order of first appearance (as documented)", async () => {
    const ds = await loadOwnDataFolder(
      folder({ "items.csv": ITEMS, "labels.csv": "item_id,model,correct\nq2,b,1\nq1,a,1\nq1,b,0\n" }),
    );
    expect(ds.models).toEqual(["b", "a"]);
    expect(ds.prices).toBeUndefined();
  });

  const ws: [string, Record<string, string>, string, number, RegExp][] = [
    [
      "item id in labels",
      { "items.csv": ITEMS, "labels.csv": `${LABELS} q2,m2,1\n` },
      "labels.csv",
      5,
      /"item_id" " q2" has leading or trailing whitespace/,
    ],
    [
      "model in labels",
      { "items.csv": ITEMS, "labels.csv": `${LABELS}q2,m1 ,1\n` },
      "labels.csv",
      5,
      /"model" "m1 " has leading or trailing whitespace.*"m1"/,
    ],
    [
      "item id in items",
      { "items.csv": 'item_id,text\nq1,a\n"q2 ",b\n', "labels.csv": LABELS },
      "items.csv",
      3,
      /"item_id" "q2 "/,
    ],
    [
      "model in models",
      {
        "items.csv": ITEMS,
        "labels.csv": LABELS,
        "models.csv": "model,input_usd_per_1m,output_usd_per_1m\nm1,1,1\n\tm2,1,1\n",
      },
      "models.csv",
      3,
      /"model" "\\tm2"/,
    ],
    [
      "model in JSONL labels",
      { "items.jsonl": ITEMS_JSONL, "labels.jsonl": '{"item_id":"q1","model":" m1","correct":1}\n' },
      "labels.jsonl",
      1,
      /"model" " m1"/,
    ],
  ];
  for (const [what, files, file, line, message] of ws) {
    it(`leading/trailing whitespace in the ${what} is an error, not a distinct id`, async () => {
      await expectFormatError(files, file, line, message);
    });
  }
});

describe("JSONL", () => {
  it("strips a UTF-8 byte-order mark as CSV does", async () => {
    const ds = await loadOwnDataFolder(
      folder({ "items.jsonl": `\ufeff${ITEMS_JSONL}`, "labels.jsonl": `\ufeff${LABELS_JSONL}` }),
    );
    expect(ds.items.map((i) => i.id)).toEqual(["q1", "q2"]);
    expect(Array.from(ds.labels.y)).toEqual([1]);
  });

  it('"text": 42 is reported as not a string (not as an empty text)', async () => {
    await expectFormatError(
      { "items.jsonl": '{"item_id":"q1","text":42}\n', "labels.jsonl": LABELS_JSONL },
      "items.jsonl",
      1,
      /"text" must be a string.*got 42/,
    );
    await expectFormatError(
      { "items.jsonl": '{"item_id":"q1","text":null}\n', "labels.jsonl": LABELS_JSONL },
      "items.jsonl",
      1,
      /"text" must be a string.*got null/,
    );
  });

  it("a duplicate key is an error naming file and line, also when escaped or in a nested object", async () => {
    await expectFormatError(
      { "items.jsonl": ITEMS_JSONL, "labels.jsonl": '{"item_id":"q1","model":"m1","correct":1,"correct":0}\n' },
      "labels.jsonl",
      1,
      /key "correct" appears twice/,
    );
    await expectFormatError(
      {
        "items.jsonl": ITEMS_JSONL,
        "labels.jsonl": `${LABELS_JSONL}{"item_id":"q2","\\u006dodel":"m1","model":"m2","correct":1}\n`,
      },
      "labels.jsonl",
      2,
      /key "model" appears twice/,
    );
    await expectFormatError(
      { "items.jsonl": '{"item_id":"q1","text":"hi","src":{"a":1,"b":{"a":2},"a":3}}\n', "labels.jsonl": LABELS_JSONL },
      "items.jsonl",
      1,
      /key "a" appears twice/,
    );
  });

  it("the same key in different objects, and keys inside strings or arrays, are fine", async () => {
    const items =
      '{"item_id":"q1","text":"say \\"text\\": \\"x\\", \\"text\\"","src":{"text":1,"l":[{"a":1},{"a":2}]}}\n';
    const ds = await loadOwnDataFolder(folder({ "items.jsonl": items, "labels.jsonl": LABELS_JSONL }));
    expect(ds.items[0]!.text).toBe('say "text": "x", "text"');
    expect(ds.items[0]!.meta).toEqual({ src: '{"text":1,"l":[{"a":1},{"a":2}]}' });
  });
});

describe("a misspelt column is refused, in CSV as in JSONL", () => {
  it("items.csv with `categroy` is an error suggesting category", async () => {
    await expectFormatError(
      { "items.csv": "item_id,text,categroy\nq1,hi,code\n", "labels.csv": LABELS },
      "items.csv",
      1,
      /column "categroy" is not a known column; did you mean "category"\?/,
    );
  });

  it("items.jsonl with `categroy` is an error naming its line, not item metadata", async () => {
    await expectFormatError(
      {
        "items.jsonl": '{"item_id":"q1","text":"hi","src":"a"}\n\n{"item_id":"q2","text":"yo","categroy":"code"}\n',
        "labels.jsonl": LABELS_JSONL,
      },
      "items.jsonl",
      3,
      /field "categroy" is not a known field; did you mean "category"\?/,
    );
  });

  it('labels.jsonl and models.jsonl get the same suggestion (not only "unknown field")', async () => {
    await expectFormatError(
      { "items.jsonl": ITEMS_JSONL, "labels.jsonl": '{"item_id":"q1","model":"m1","correct":1,"cost_ud":0.1}\n' },
      "labels.jsonl",
      1,
      /field "cost_ud" is not a known field; did you mean "cost_usd"\?/,
    );
    await expectFormatError(
      {
        "items.jsonl": ITEMS_JSONL,
        "labels.jsonl": LABELS_JSONL,
        "models.jsonl": '{"model":"m1","input_usd_per_1m":1,"output_usd_per_1m":1,"cached_input_usd_per1m":0.5}\n',
      },
      "models.jsonl",
      1,
      /did you mean "cached_input_usd_per_1m"\?/,
    );
  });

  it("a field far from every known one is still item metadata", async () => {
    const ds = await loadOwnDataFolder(
      folder({ "items.jsonl": '{"item_id":"q1","text":"hi","difficulty":"hard"}\n', "labels.jsonl": LABELS_JSONL }),
    );
    expect(ds.items[0]!.meta).toEqual({ difficulty: "hard" });
  });
});

describe("CSV line endings", () => {
  it("a file with bare CR line endings is an error naming that file (not a confusing error in labels.csv)", async () => {
    await expectFormatError(
      { "items.csv": ITEMS.replace(/\n/g, "\r"), "labels.csv": LABELS },
      "items.csv",
      1,
      /carriage return.*line endings/,
    );
  });

  it("CRLF still loads", async () => {
    const ds = await loadOwnDataFolder(
      folder({ "items.csv": ITEMS.replace(/\n/g, "\r\n"), "labels.csv": LABELS.replace(/\n/g, "\r\n") }),
    );
    expect(ds.items.map((i) => i.text)).toEqual(["What is 2+2?", "Capital of France?"]);
  });
});

describe("folder contents: misnamed or unsupported table files are not silently ignored", () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    [
      "model.csv (misspelled models)",
      { "items.csv": ITEMS, "labels.csv": LABELS, "model.csv": MODELS },
      "model.csv",
      /did you mean models\.csv\?.*models\.csv, models\.csv\.gz or models\.jsonl/,
    ],
    [
      "models.json (unsupported format)",
      { "items.csv": ITEMS, "labels.csv": LABELS, "models.json": "[]" },
      "models.json",
      /"\.json" is not a supported table format.*models\.csv, models\.csv\.gz or models\.jsonl/,
    ],
    [
      "labels.json beside items.csv",
      { "items.csv": ITEMS, "labels.json": "{}" },
      "labels.json",
      /labels\.csv, labels\.csv\.gz or labels\.jsonl/,
    ],
    [
      "lables.csv (swapped letters)",
      { "items.csv": ITEMS, "lables.csv": LABELS },
      "lables.csv",
      /did you mean labels\.csv\?/,
    ],
    ["Items.csv (wrong case)", { "Items.csv": ITEMS, "labels.csv": LABELS }, "Items.csv", /did you mean items\.csv\?/],
    [
      "item.jsonl",
      { "item.jsonl": ITEMS_JSONL, "labels.jsonl": LABELS_JSONL },
      "item.jsonl",
      /did you mean items\.jsonl\?/,
    ],
    [
      "labels.tsv",
      { "items.csv": ITEMS, "labels.csv": LABELS, "labels.tsv": "" },
      "labels.tsv",
      /"\.tsv" is not a supported/,
    ],
  ];
  for (const [what, files, file, message] of cases) {
    it(what, async () => {
      await expectFormatError(files, file, undefined, message);
      // Also through loadDataset (dataset resolution), not a generic "not found".
      const error = await loadError(files, loadDataset);
      expect(error, String(error)).toBeInstanceOf(DatasetFormatError);
      expect(error.file?.endsWith(`/${file}`)).toBe(true);
    });
  }

  it("unrelated files are allowed", async () => {
    const dir = folder({
      "items.csv": ITEMS,
      "labels.csv": LABELS,
      "README.md": "# my evals",
      "notes.txt": "x",
      "models.md": "how the models were run",
      "nodes.csv": "a\n1\n",
      "levels.csv": "a\n1\n",
      ".DS_Store": "",
      // notes and backups beside the tables
      "models.txt": "prices from the vendor's page",
      "labels.csv.bak": LABELS,
      "items.csv~": ITEMS,
      "label.txt": "x",
    });
    mkdirSync(join(dir, "model")); // a sub-folder is not a table
    const ds = await loadDataset(dir);
    expect(ds.source.files).toEqual(["items.csv", "labels.csv"]);
  });

  for (const [what, files, missing, present] of [
    ["items without labels", { "items.csv": ITEMS, "README.md": "x" }, "labels", "items.csv"],
    ["labels without items", { "labels.jsonl": LABELS_JSONL }, "items", "labels.jsonl"],
  ] as const) {
    it(`${what}: the error says which table is missing (loadDataset and loadOwnDataFolder)`, async () => {
      for (const load of [loadDataset, loadOwnDataFolder]) {
        const error = await loadError(files, load);
        expect(error, String(error)).toBeInstanceOf(DatasetNotFoundError);
        expect(error.message).toContain(`it has ${present} but no ${missing} table`);
        expect(error.message).toContain(`${missing}.csv, ${missing}.csv.gz or ${missing}.jsonl`);
        expect(error.message).not.toMatch(/neither one of the four known datasets/);
      }
    });
  }

  it("a folder with no table at all still gets the generic not-found message", async () => {
    const error = await loadError({ "README.md": "x" }, loadDataset);
    expect(error).toBeInstanceOf(DatasetNotFoundError);
    expect(error.message).toMatch(/neither one of the four known datasets nor a your-own-data folder/);
  });
});
