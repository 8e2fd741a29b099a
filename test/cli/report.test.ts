import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { command } from "../../adapters/cli/commands/report.js";
import { parseCliArgs } from "../../adapters/cli/args.js";
import { FileStore } from "../../adapters/stores/index.js";
import { ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { rejectedWith, thrownBy } from "../errors.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-report-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const EVAL = "bench/results/eval-routerbench-subset-11models.json";

const run = (argv: string[]) => {
  const parsed = parseCliArgs(command, argv);
  return command.run(parseWith(command.schema, parsed.values, "options"), parsed.positionals);
};

describe("irt-router report flags", () => {
  it("names an unknown flag, a flag without value, and an empty value", () => {
    expect(thrownBy(ValidationError, () => parseCliArgs(command, ["--evla", "x"])).message).toMatch(
      /did you mean --eval/,
    );
    expect(thrownBy(ValidationError, () => parseCliArgs(command, ["--store"])).path).toBe("options.store");
    const parsed = parseCliArgs(command, ["--out", ""]);
    expect(thrownBy(ValidationError, () => parseWith(command.schema, parsed.values, "options")).path).toBe(
      "options.out",
    );
  });

  it("refuses an unreadable or malformed input file, naming its flag", async () => {
    const missing = await rejectedWith(ValidationError, run(["--eval", join(tmp, "nope.json"), "--out", tmp]));
    expect(missing.path).toBe("options.eval");
    writeFileSync(join(tmp, "bad.json"), "{ not json");
    expect((await rejectedWith(ValidationError, run(["--agent", join(tmp, "bad.json")]))).path).toBe("options.agent");
    writeFileSync(join(tmp, "wrong.json"), JSON.stringify({ dataset: "x" }));
    expect((await rejectedWith(ValidationError, run(["--eval", join(tmp, "wrong.json")]))).message).toMatch(
      /--eval.*costReference/,
    );
  });

  it("refuses flags that would be ignored or that conflict, with the flags (before it runs)", async () => {
    expect(thrownBy(ValidationError, () => run(["--cache-dir", tmp])).path).toBe("options.cache-dir");
    expect(thrownBy(ValidationError, () => run(["--eval", EVAL, "--agent", EVAL])).path).toBe("options.eval");
    expect((await rejectedWith(ValidationError, run(["--store", join(tmp, "no-such-store")]))).path).toBe(
      "options.store",
    );
  });

  it("writes the page and one SVG per figure drawn, and lists the figures it could not draw", async () => {
    const storeDir = join(tmp, "store");
    const store = await FileStore.open(storeDir);
    await store.append(
      Array.from({ length: 30 }, (_, i) => ({
        id: `e${i}`,
        model: i % 2 ? "gpt-4-1106-preview" : "claude-v1",
        alpha: Array.from({ length: 32 }, (_, j) => ((i + j) % 5) / 10),
        beta: 0.1,
        y: i % 3 ? 1 : 0,
        at: 1_700_000_000_000 + i,
      })),
    );
    await store.close();
    writeFileSync(join(tmp, "log.jsonl"), '{"model":"a","category":"math","p":0.7,"ok":true}\n{"model":"b"}\n');
    const out = join(tmp, "report");
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(
        await run(["--eval", EVAL, "--decisions", join(tmp, "log.jsonl"), "--store", storeDir, "--out", out]),
      ).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    for (const id of [
      "ability-heatmap",
      "ability-projection",
      "reliability",
      "frontier",
      "routing-share",
      "learning-ability",
      "learning-share",
    ])
      expect(readFileSync(join(out, `${id}.svg`), "utf8")).toMatch(/^<svg/);
    expect(existsSync(join(out, "difficulty.svg"))).toBe(false);
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toMatch(/Figures not drawn[\s\S]*Item difficulty[\s\S]*--dataset/);
    expect((html.match(/<section class="figure"/g) ?? []).length).toBe(7);
  }, 60_000);
});
