/** `irt-router train --runs` on a generated run-level folder: a run prior a RunRouter starts from. */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { command } from "../../adapters/cli/commands/train.js";
import { loadRunPrior, saveRunPrior } from "../../adapters/artifact/run-prior-file.js";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { splitIndices } from "../../src/data/split.js";
import { ArtifactError, ValidationError } from "../../src/errors.js";
import { RunRouter, trainRunPrior } from "../../src/runs/index.js";
import { parseWith } from "../../src/util/validate.js";

// 60 agent runs x 3 models, success rates as labels (soft): "mid" (middle price) is the best on "code" tasks
// (rate 0.8 against 0.4), "top" (dearest) on "math" tasks (0.9 against 0.3); "low" passes 0.1 of everything.
const tmp = mkdtempSync(join(tmpdir(), "irt-router-train-runs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
const folder = join(tmp, "agent-runs");
mkdirSync(folder);
const ids = Array.from({ length: 60 }, (_, i) => `task-${i}`);
const kind = (i: number) => (i % 2 === 0 ? "code" : "math");
writeFileSync(
  join(folder, "items.csv"),
  "item_id,text,category\n" + ids.map((id, i) => `${id},Solve ${id} in the repository,${kind(i)}`).join("\n") + "\n",
);
const rates = (i: number) => (kind(i) === "code" ? { top: 0.4, mid: 0.8, low: 0.1 } : { top: 0.9, mid: 0.3, low: 0.1 });
writeFileSync(
  join(folder, "labels.csv"),
  "item_id,model,correct\n" +
    ids.flatMap((id, i) => Object.entries(rates(i)).map(([m, r]) => `${id},${m},${r}`)).join("\n") +
    "\n",
);
writeFileSync(join(folder, "models.csv"), "model,input_usd_per_1m,output_usd_per_1m\ntop,5,25\nmid,1,8\nlow,0.1,0.4\n");

describe("irt-router train --runs", () => {
  it("validates its flags, naming the flag", () => {
    const parse = (a: Record<string, unknown>) => parseWith(command.schema, a, "options");
    expect(() => parse({ runs: true, pretrained: true })).toThrow(/options\.dataset/);
    expect(() => parse({ runs: true, dataset: [folder, folder + "2"], out: tmp })).toThrow(/options\.dataset/);
    expect(() => parse({ dataset: [folder], out: tmp, hints: true })).toThrow(/options\.hints.*--runs/);
  });

  it("writes a run prior from the train split's rates (soft labels) that a new router starts from", async () => {
    const out = join(tmp, "prior");
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const code = await command.run(
      parseWith(command.schema, { runs: true, hints: true, dataset: [folder], out }, "options"),
      [],
    );
    expect(code).toBe(0);
    expect(String(stdout.mock.calls.at(-1)![0])).toMatch(/wrote .*run-prior\.json/);
    const prior = await loadRunPrior(out);
    const train = splitIndices("agent-runs", ids).train;
    expect(prior.tasks).toHaveLength(train.length);
    expect(prior.source).toMatchObject({ dataset: "agent-runs", items: train.length, outcomes: 3 * train.length });
    // soft labels: overall top 0.65, mid 0.55, low 0.1 -> abilities in that order
    const a = (m: string) => prior.models[m]!.ability.mean;
    expect(a("top")).toBeGreaterThan(a("mid"));
    expect(a("mid")).toBeGreaterThan(a("low") + 1);
    // the prior holds no text: word vectors and difficulties only
    expect(readFileSync(join(out, "run-prior.json"), "utf8")).not.toContain("repository");
    // a fresh router from the prior: per hint, the model the rates say (no feedback of its own)
    const router = new RunRouter({
      models: { top: { runCost: 3 }, mid: { runCost: 0.72 }, low: { runCost: 0.056 } },
      prior,
    });
    expect(router.feedbackCount).toBe(0);
    expect(router.route({ text: "Solve a new task", hint: "code" }).chosen).toBe("mid");
    expect(router.route({ text: "Solve a new task", hint: "math" }).chosen).toBe("top");
    const p = router.route({ text: "Solve a new task", hint: "code" }).candidates.find((c) => c.modelId === "mid")!.p;
    expect(p).toBeGreaterThan(0.6);
    expect(p).toBeLessThan(0.95);
    // a model the prior does not know keeps its price-tier prior
    const wider = new RunRouter({ models: { top: { runCost: 3 }, newcomer: { runCost: 3 } }, prior });
    expect(wider.route("Solve a new task").candidates.map((c) => c.modelId)).toContain("newcomer");
  });

  it("--hints on a folder whose items have no category is refused before anything is trained or written", async () => {
    const bare = join(tmp, "no-category");
    mkdirSync(bare);
    writeFileSync(join(bare, "items.csv"), "item_id,text\n" + ids.map((id) => `${id},Solve ${id}`).join("\n") + "\n");
    writeFileSync(join(bare, "labels.csv"), readFileSync(join(folder, "labels.csv")));
    writeFileSync(join(bare, "models.csv"), readFileSync(join(folder, "models.csv")));
    const out = join(tmp, "no-category-prior");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const run = command.run(
      parseWith(command.schema, { runs: true, hints: true, dataset: [bare], out }, "options"),
      [],
    );
    await expect(run).rejects.toThrow(ValidationError);
    await expect(run).rejects.toThrow(/no item of no-category has a category/);
    expect(stderr.mock.calls.map((c) => String(c[0])).join("")).not.toContain("categories as task hints");
    expect(() => readdirSync(out)).toThrow(); // nothing written
    // the library call says the same
    const table = await loadRunTable(bare);
    expect(() => trainRunPrior(table, { hints: true })).toThrow(/no item of no-category has a category/);
    expect(trainRunPrior(table).models).toHaveProperty("top"); // without hints it trains
  });

  it("the same table gives the same prior, with no sync checkpoint (it was trained apart from any log)", async () => {
    const table = await loadRunTable(folder);
    const items = splitIndices(table.name, table.ids).train;
    const [a, b] = [trainRunPrior(table, { items }), trainRunPrior(table, { items })];
    expect(a.sync).toBeUndefined();
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it("a router from the prior decides as the router that was fed the same outcomes", async () => {
    const table = await loadRunTable(folder);
    const items = splitIndices(table.name, table.ids).train;
    const prior = trainRunPrior(table, { items });
    const models = Object.fromEntries(table.models.map((m, k) => [m, { runCost: table.runCost[k]! }]));
    const fed = new RunRouter({ models });
    for (const i of items)
      table.models.forEach((m, k) => fed.feedback({ id: ids[i]!, text: table.texts[i]! }, m, table.rate[i]![k]!));
    const fresh = new RunRouter({ models, prior });
    for (const w of [0, 0.1, 0.3, 1]) {
      const a = fed.route("Solve task-x in the repository", { costWeight: w });
      const b = fresh.route("Solve task-x in the repository", { costWeight: w });
      expect(b.chosen).toBe(a.chosen);
      for (const c of a.candidates) {
        expect(b.candidates.find((x) => x.modelId === c.modelId)!.p).toBeCloseTo(c.p, 1);
      }
    }
  });

  it("saveRunPrior writes what a router learned whole; a router restarted from it routes as the one that learned", async () => {
    const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
    const learned = new RunRouter({ models });
    for (let i = 0; i < 12; i++) {
      learned.feedback({ id: `t${i}`, text: `Fix the parser bug number ${i}` }, "small", i % 3 === 0);
      learned.feedback({ id: `t${i}`, text: `Fix the parser bug number ${i}` }, "big", i % 4 !== 0);
    }
    const dir = join(tmp, "saved-prior");
    const file = await saveRunPrior(dir, learned.toPrior({ service: "test" }));
    expect(file).toBe(join(dir, "run-prior.json"));
    // Saved again over the old one: one file, no temp file left behind.
    await saveRunPrior(dir, learned.toPrior({ service: "test", round: 2 }));
    expect(readdirSync(dir)).toEqual(["run-prior.json"]);
    const prior = await loadRunPrior(dir);
    expect(prior.source).toEqual({ service: "test", round: 2 });
    const restarted = new RunRouter({ models, prior });
    const task = { id: "new", text: "Fix the parser bug in the lexer" };
    const a = learned.route(task, { costWeight: 0.1 });
    const b = restarted.route(task, { costWeight: 0.1 });
    expect(b.chosen).toBe(a.chosen);
    for (const m of ["big", "small"]) {
      const pa = a.candidates.find((c) => c.modelId === m)!.p;
      const pb = b.candidates.find((c) => c.modelId === m)!.p;
      expect(Math.abs(pa - pb)).toBeLessThan(0.05); // the restart adds a little drift variance to each ability
    }
  });

  it("saveRunPrior refuses a prior that is not one, naming the field, and writes nothing", async () => {
    const dir = join(tmp, "not-saved");
    const prior = new RunRouter({ models: { a: { runCost: 1 } } }).toPrior();
    const bad = { ...prior, models: { a: { ability: { mean: 0, variance: -1 }, runCost: 1 } } };
    await expect(saveRunPrior(dir, bad)).rejects.toThrow(ValidationError);
    await expect(saveRunPrior(dir, bad)).rejects.toThrow(/prior\.models\.a\.ability\.variance/);
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });

  it("loadRunPrior says how to make a prior when the path does not exist", async () => {
    const missing = join(tmp, "no-such-prior");
    await expect(loadRunPrior(missing)).rejects.toThrow(ArtifactError);
    await expect(loadRunPrior(missing)).rejects.toThrow(/no-such-prior does not exist: .*train --runs.*saveRunPrior/);
    mkdirSync(join(tmp, "empty-dir"));
    await expect(loadRunPrior(join(tmp, "empty-dir"))).rejects.toThrow(/empty-dir\/run-prior\.json does not exist/);
  });

  it("loadRunPrior names a file that is not a run prior", async () => {
    const bad = join(tmp, "bad.json");
    writeFileSync(bad, JSON.stringify({ format: "something-else" }));
    await expect(loadRunPrior(bad)).rejects.toThrow(ArtifactError);
    await expect(loadRunPrior(bad)).rejects.toThrow(/bad\.json is not a run prior/);
  });
});
