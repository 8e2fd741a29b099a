import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { command } from "../../adapters/cli/commands/replay.js";
import { DatasetFormatError, ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";

// A folder of 12 agent runs x 3 models with prices: "good" passes most, "cheap" some, "bad" none.
const tmp = mkdtempSync(join(tmpdir(), "irt-router-replay-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
const folder = join(tmp, "runs");
mkdirSync(folder);
const ids = Array.from({ length: 12 }, (_, i) => `task-${i}`);
writeFileSync(
  join(folder, "items.csv"),
  "item_id,text\n" + ids.map((id) => `${id},Fix ${id} in the repo`).join("\n") + "\n",
);
writeFileSync(
  join(folder, "labels.csv"),
  "item_id,model,correct\n" +
    ids
      .flatMap((id, i) => [`${id},good,${i % 4 ? 1 : 0}`, `${id},cheap,${i % 2 ? 0.6 : 0}`, `${id},bad,0`])
      .join("\n") +
    "\n",
);
writeFileSync(
  join(folder, "models.csv"),
  "model,input_usd_per_1m,output_usd_per_1m\ngood,5,25\ncheap,0.5,3\nbad,0.1,0.4\n",
);

describe("irt-router replay", () => {
  it("validates its flags, naming the flag", () => {
    expect(() => parseWith(command.schema, { dataset: folder, seeds: "0" }, "options")).toThrow(/options\.seeds/);
    expect(() => parseWith(command.schema, {}, "options")).toThrow(ValidationError);
  });

  it("prints the --json document of the issue's shape, progress on stderr", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const code = await command.run(
      parseWith(command.schema, { dataset: folder, seeds: "1", "online-seeds": "2", json: true }, "options"),
      [],
    );
    expect(code).toBe(0);
    const doc = JSON.parse(String(out.mock.calls.at(-1)![0]));
    expect(doc).toMatchObject({ dataset: "runs", runs: 12, models: 3 });
    for (const leaf of [
      doc.crossFit.bestFixed,
      doc.crossFit.single[0],
      doc.crossFit.escalation[0],
      doc.online.anonymous.router,
      doc.online.anonymous.thompson,
      doc.online.anonymous.bestFixedHindsight,
      doc.online.anonymous.oracle,
      doc.online.named.router,
    ]) {
      expect(typeof leaf.success).toBe("number");
      expect(typeof leaf.costRatio).toBe("number");
    }
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toContain("400,000 input + 40,000 output tokens");
  });

  it("replays a folder where a (task, model) pair has no row, routing around it and saying so", async () => {
    const gaps = join(tmp, "gaps");
    mkdirSync(gaps);
    writeFileSync(join(gaps, "items.csv"), "item_id,text\n" + ids.map((id) => `${id},Fix ${id}`).join("\n") + "\n");
    writeFileSync(
      join(gaps, "labels.csv"),
      "item_id,model,correct\n" +
        ids.flatMap((id, i) => [`${id},good,1`, ...(i < 5 ? [] : [`${id},cheap,0.5`])]).join("\n") +
        "\n",
    );
    writeFileSync(join(gaps, "models.csv"), "model,input_usd_per_1m,output_usd_per_1m\ngood,5,25\ncheap,0.5,3\n");
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const args = parseWith(command.schema, { dataset: gaps, seeds: "1", "online-seeds": "1" }, "options");
    await expect(command.run(args, [])).resolves.toBe(0);
    const said = /5 of the 24 \(run, model\) pairs have no label \(on 5 runs, for 1 model\): every policy routes among/;
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(said);
    expect(out.mock.calls.map((c) => String(c[0])).join("")).toMatch(said);
  });

  it("names the models without a price", async () => {
    const bare = join(tmp, "no-prices");
    mkdirSync(bare);
    writeFileSync(join(bare, "items.csv"), "item_id,text\n" + ids.map((id) => `${id},Fix ${id}`).join("\n") + "\n");
    writeFileSync(join(bare, "labels.csv"), "item_id,model,correct\n" + ids.map((id) => `${id},x,1`).join("\n") + "\n");
    await expect(command.run(parseWith(command.schema, { dataset: bare }, "options"), [])).rejects.toThrow(
      DatasetFormatError,
    );
  });

  it("names a free reference model instead of failing in the pacer (spent NaN)", async () => {
    const free = join(tmp, "free-best");
    mkdirSync(free);
    writeFileSync(join(free, "items.csv"), "item_id,text\n" + ids.map((id) => `${id},Fix ${id}`).join("\n") + "\n");
    writeFileSync(
      join(free, "labels.csv"),
      "item_id,model,correct\n" + ids.flatMap((id, i) => [`${id},local,1`, `${id},cheap,${i % 2}`]).join("\n") + "\n",
    );
    writeFileSync(join(free, "models.csv"), "model,input_usd_per_1m,output_usd_per_1m\nlocal,0,0\ncheap,0.5,3\n");
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const run = command.run(
      parseWith(command.schema, { dataset: free, seeds: "1", "online-seeds": "1" }, "options"),
      [],
    );
    await expect(run).rejects.toThrow(DatasetFormatError);
    await expect(run).rejects.toMatchObject({ details: { model: "local" } });
  });
});
