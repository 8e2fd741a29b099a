import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";
import { splitLines, type StreamedLine } from "../../adapters/data/source-files.js";
import { DatasetFormatError } from "../../src/errors.js";

// The labels table is read as a stream (a 200 MB labels.csv took 2.3 GB when read whole): the line splitter consumes
// its source chunk by chunk, and the streamed table reads exactly what the whole-file reader read.

/** A source of chunks that counts how many were pulled. */
function counted(chunks: readonly (string | Buffer)[]): { source: AsyncIterable<Buffer>; pulled: () => number } {
  let pulled = 0;
  return {
    source: (async function* () {
      for (const c of chunks) {
        pulled++;
        yield Buffer.isBuffer(c) ? c : Buffer.from(c, "utf8");
      }
    })(),
    pulled: () => pulled,
  };
}

describe("splitLines", () => {
  it("hands each chunk's lines on before pulling the next chunk", async () => {
    const chunks = Array.from({ length: 1000 }, (_, k) => `line ${2 * k + 1}\nline ${2 * k + 2}\n`);
    const { source, pulled } = counted(chunks);
    let batches = 0;
    let lines = 0;
    for await (const batch of splitLines(source, "labels.csv")) {
      batches++;
      lines += batch.length;
      // After batch b the splitter has pulled b chunks: it never reads ahead of what it hands on.
      expect(pulled()).toBe(batches);
      expect(batch.map((l) => l.text)).toEqual([`line ${2 * batches - 1}`, `line ${2 * batches}`]);
    }
    expect([batches, lines]).toEqual([1000, 2000]);
  });

  it("joins lines and UTF-8 characters cut across chunks, keeps a \\r, numbers lines, ends without a newline", async () => {
    const e = Buffer.from("é", "utf8"); // two bytes, cut between chunks below
    const chunks = [Buffer.from("a,caf"), e.subarray(0, 1), Buffer.concat([e.subarray(1), Buffer.from("\r\n\nlast")])];
    const out: StreamedLine[] = [];
    for await (const batch of splitLines(counted(chunks).source, "f.csv")) out.push(...batch);
    expect(out).toEqual([
      { text: "a,café\r", line: 1 },
      { text: "", line: 2 },
      { text: "last", line: 3 },
    ]);
  });

  it("names the line of bytes that are not UTF-8, in a later chunk", async () => {
    const chunks = ["a\nb\n", "c\n", Buffer.from("d,caf\xe9\n", "latin1")];
    const read = async () => {
      for await (const batch of splitLines(counted(chunks).source, "labels.csv")) void batch;
    };
    await expect(read()).rejects.toThrow(/labels\.csv line 4: not UTF-8/);
  });
});

describe("labels read as a stream", () => {
  const root = mkdtempSync(join(tmpdir(), "irt-router-labels-stream-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const folder = (files: Record<string, string | Buffer>) => {
    const dir = join(root, `case${n++}`, "evals");
    mkdirSync(dir, { recursive: true });
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    return dir;
  };

  it("a large labels file (gzipped too) loads every label, with costs from the first row that has one", async () => {
    const items = 3000;
    const models = 7;
    const itemsCsv = `item_id,text\n${Array.from({ length: items }, (_, i) => `q${i},question ${i}`).join("\n")}\n`;
    let labels = "item_id,model,correct,cost_usd\r\n";
    for (let i = 0; i < items; i++)
      for (let m = 0; m < models; m++) labels += `q${i},m${m},${(i + m) % 2},${i === 0 ? "" : (i * m) / 1000}\r\n`;
    const tables: Record<string, string | Buffer>[] = [
      { "items.csv": itemsCsv, "labels.csv": labels },
      { "items.csv": itemsCsv, "labels.csv.gz": gzipSync(labels) },
    ];
    for (const files of tables) {
      const ds = await loadOwnDataFolder(folder(files));
      expect(ds.models).toEqual(Array.from({ length: models }, (_, m) => `m${m}`));
      expect(ds.labels.model.length).toBe(items * models);
      const k = ds.labels.offsets[2999]! + 3; // item 2999, model 3
      expect([ds.labels.model[k], ds.labels.y[k], ds.labels.cost![k]]).toEqual([3, 0, Math.fround(8.997)]);
      expect(Number.isNaN(ds.labels.cost![0]!)).toBe(true);
    }
  });

  it("a quoted field spanning lines is one record; errors name the line after it", async () => {
    const dir = folder({
      "items.csv": 'item_id,text\n"q\n1",a\nq2,b\n',
      "labels.csv": 'item_id,model,correct\n"q\n1",m1,1\nq2,m1,1\n"q\n1",m1,0\n',
    });
    const error = await loadOwnDataFolder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetFormatError);
    expect((error as DatasetFormatError).message).toMatch(
      /labels\.csv line 5: duplicate label for item "q\n1" and model "m1" \(first on line 2\)/,
    );
  });

  it("JSON Lines labels stream too, with their checks", async () => {
    const items = '{"item_id":"q1","text":"hi"}\n{"item_id":"q2","text":"yo"}\n';
    const ds = await loadOwnDataFolder(
      folder({
        "items.jsonl": items,
        "labels.jsonl":
          '\ufeff{"item_id":"q1","model":"m1","correct":1}\r\n\n{"item_id":"q2","model":"m2","correct":0}\n',
      }),
    );
    expect([...ds.labels.offsets]).toEqual([0, 1, 2]);
    await expect(
      loadOwnDataFolder(
        folder({ "items.jsonl": items, "labels.jsonl": '{"item_id":"q1","model":"m1","correct":1}\n{"item_id":\n' }),
      ),
    ).rejects.toThrow(/labels\.jsonl line 2: not valid JSON/);
  });
});
