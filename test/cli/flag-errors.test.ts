/**
 * Flag errors through the CLI's entry point: each names the flag as typed (`--seeds`, never `options.seeds`), exits 2
 * however the value was spelt, and comes before any work; output folders that cannot be folders (a file, /proc) are
 * refused up front; `train --runs` refuses the scorer's flags it has no use for; flags a command cannot take together
 * are refused with the flags (exit 2), not when the command runs; and a folder too small to split says so with its
 * counts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { parseFlagValues } from "../../adapters/cli/args.js";
import { command as demo } from "../../adapters/cli/commands/demo.js";
import { command as replay } from "../../adapters/cli/commands/replay.js";
import { command as report } from "../../adapters/cli/commands/report.js";
import { flagWords, main } from "../../adapters/cli/main.js";
import { splitOf } from "../../src/data/split.js";

/** The package root the CLI sees: its own, or (`installedAt`) a folder under node_modules, as an installed package's. */
const root = vi.hoisted(() => ({ installedAt: undefined as string | undefined }));
vi.mock("../../adapters/package-root.js", async (importActual) => {
  const actual = await importActual<typeof import("../../adapters/package-root.js")>();
  return { packageRoot: () => root.installedAt ?? actual.packageRoot() };
});

const tmp = mkdtempSync(join(tmpdir(), "irt-router-flag-errors-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  root.installedAt = undefined;
});

/** Runs the CLI's main with stdout and stderr captured. */
async function cli(argv: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    const code = await main(argv);
    return {
      code,
      stderr: err.mock.calls.map((c) => String(c[0])).join(""),
      stdout: out.mock.calls.map((c) => String(c[0])).join(""),
    };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

// a run-level folder: 40 agent runs x 2 models, success rates as labels
const runs = join(tmp, "agent-runs");
mkdirSync(runs);
const runIds = Array.from({ length: 40 }, (_, i) => `task-${i}`);
writeFileSync(join(runs, "items.csv"), "item_id,text\n" + runIds.map((id) => `${id},Fix ${id}`).join("\n") + "\n");
writeFileSync(
  join(runs, "labels.csv"),
  "item_id,model,correct\n" +
    runIds.flatMap((id, i) => [`${id},a,${i % 3 ? 0.8 : 0.2}`, `${id},b,0.5`]).join("\n") +
    "\n",
);
writeFileSync(join(runs, "models.csv"), "model,input_usd_per_1m,output_usd_per_1m\na,5,25\nb,1,4\n");

const file = join(tmp, "a-file");
writeFileSync(file, "not a folder");

describe("a bad flag value names the flag as typed and exits 2, however it is spelt", () => {
  it("--seeds 0, --seeds=-1, --seeds -1 and --online-seeds 1.5 all exit 2 naming the flag", async () => {
    for (const args of [["--seeds", "0"], ["--seeds=-1"], ["--seeds", "-1"], ["--online-seeds", "1.5"]]) {
      const r = await cli(["replay", "--dataset", runs, ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      const flag = args[0]!.split("=")[0]!;
      expect(r.stderr, args.join(" ")).toContain(`irt-router replay: [INVALID_ARGUMENT] ${flag}`);
      expect(r.stderr).not.toMatch(/options\./);
      expect(r.stderr).toContain("Usage: irt-router replay");
    }
  });

  it("schema and cross-flag messages of other commands name their flags too", async () => {
    const cases: [string[], RegExp][] = [
      [["train", "--runs", "--dataset", runs], /\] --out is required/],
      [["explain", "hi", "--encoder", "STATIC"], /\] --encoder must be static/],
      [["explain", "hi", "--top", "0"], /\] --top must be a positive integer/],
      [["embed", "--dataset", runs, "--batch", "5000"], /\] --batch must be at most 4096/],
      [["eval", "--dataset", runs, "--seeds", "21"], /\] --seeds must be at most 20/],
      [["train", "--dataset", runs, "--out", join(tmp, "o"), "--hints"], /\] --hints applies to --runs only/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toMatch(message);
      expect(r.stderr, argv.join(" ")).not.toMatch(/options\.|Invalid options/);
    }
  });

  it("a library error's option path reads as the flag that fed it (eval --labels -> options.labels)", () => {
    const options = { labels: { type: "string" }, "data-root": { type: "string" } } as const;
    expect(flagWords("options.labels applies only to routerdc-7models. Remove the option.", { options })).toBe(
      "--labels applies only to routerdc-7models. Remove the option.",
    );
    expect(flagWords("options.dataRoot is not a folder", { options })).toBe("--data-root is not a folder");
    // a path that no flag feeds is left as it is
    expect(flagWords("options.models.a.price is missing", { options })).toBe("options.models.a.price is missing");
  });
});

describe("flags a command cannot take together are flag errors, found before anything loads", () => {
  it("each combination exits 2 with the usage, naming both flags, never options.<flag>", async () => {
    const cases: [string[], string][] = [
      [
        ["demo", "--report", join(tmp, "never-report"), "--no-report"],
        "--report and --no-report cannot be given together: give --report <dir> to write the report there, or --no-report for none",
      ],
      [
        ["demo", "--replay", "--report", join(tmp, "never-report")],
        "--report and --replay cannot be given together: the replay writes no report",
      ],
      [["demo", "--replay", "--no-report"], "--no-report and --replay cannot be given together"],
      [["demo", "--model", "pretrained"], "--model applies only with --replay: the built-in demo reads no dataset"],
      [["demo", "--data-root", tmp], "--data-root applies only with --replay"],
      [["demo", "--cache-dir", join(tmp, "never-cache")], "--cache-dir applies only with --replay"],
      [
        ["report", "--eval", "a.json", "--agent", "b.json", "--out", join(tmp, "never-report")],
        "--eval and --agent cannot be given together: both give the cost-accuracy frontier; give one of them",
      ],
      [["report", "--data-root", tmp, "--out", join(tmp, "never-report")], "--data-root applies only with --dataset"],
      [
        ["report", "--cache-dir", join(tmp, "never-cache"), "--out", join(tmp, "never-report")],
        "--cache-dir applies only with --dataset: add --dataset <name|folder>, or leave it out",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toContain(`irt-router ${argv[0]}: [INVALID_ARGUMENT] ${message}`);
      expect(r.stderr, argv.join(" ")).toContain(`Usage: irt-router ${argv[0]}`);
      expect(r.stderr, argv.join(" ")).not.toMatch(/options\.|Scorer:|Loading|Drawing|Writing/);
      expect(r.stdout, argv.join(" ")).toBe("");
    }
    for (const dir of ["never-report", "never-cache"]) expect(existsSync(join(tmp, dir))).toBe(false);
  });

  it("each flag of a combination is taken on its own where it applies", () => {
    expect(parseFlagValues(demo.schema, { "no-report": true, json: true })).toMatchObject({ "no-report": true });
    expect(parseFlagValues(demo.schema, { report: "r" })).toMatchObject({ report: "r" });
    const replayFlags = { replay: true, model: "m", "data-root": "d", "cache-dir": "c" };
    expect(parseFlagValues(demo.schema, replayFlags)).toMatchObject(replayFlags);
    expect(parseFlagValues(report.schema, { eval: "e" })).toMatchObject({ eval: "e" });
    const datasetFlags = { agent: "a", dataset: "x", "data-root": "d", "cache-dir": "c" };
    expect(parseFlagValues(report.schema, datasetFlags)).toMatchObject(datasetFlags);
  });

  it("train --pretrained without --out in an installed package: exit 2 naming --out and --pretrained, nothing trained", async () => {
    root.installedAt = join(tmp, "app", "node_modules", "irt-router");
    const r = await cli(["train", "--pretrained", "--encoder", "static"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `irt-router train: [INVALID_ARGUMENT] --out is required with --pretrained in an installed package: without it, train would overwrite the package's own scorer in ${join(root.installedAt, "pretrained")}`,
    );
    expect(r.stderr).not.toMatch(/Training|options\./);
  });
});

describe("--seeds and --online-seeds are bounded", () => {
  it("a number of seeds past 1000 is refused at once, naming the flag and the bound", async () => {
    for (const [flag, value] of [
      ["--seeds", "99999999999999999999"],
      ["--online-seeds", "1001"],
    ] as const) {
      const r = await cli(["replay", "--dataset", runs, flag, value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag} must be at most 1000`);
      expect(r.stderr).not.toContain("Replaying");
    }
    expect(parseFlagValues(replay.schema, { dataset: runs, seeds: "1000", "online-seeds": "1000" })).toMatchObject({
      seeds: 1000,
      "online-seeds": 1000,
    });
  });
});

describe("train --config is checked with the flags, before anything loads", () => {
  it("not JSON, a setting out of range or misspelt: exit 2 naming --config and the setting", async () => {
    const train = (config: string) =>
      cli(["train", "--dataset", "routerbench-subset-11models", "--out", join(tmp, "never"), "--config", config]);
    const cases: [string, RegExp][] = [
      ["nope", /--config is not valid JSON .* e\.g\. --config '\{"experts":4\}'/],
      ["cfg.json", /for a file, --config "\$\(cat cfg\.json\)"/],
      ['{"experts":999}', /--config \(experts\): Too big/],
      ['{"expert":2}', /--config unknown key "expert"; did you mean "experts"\?/],
      ["[1]", /--config: Invalid input: expected object/],
    ];
    for (const [config, message] of cases) {
      const r = await train(config);
      expect(r.code, config).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/options\.config/);
    }
    expect(existsSync(join(tmp, "never"))).toBe(false);
  });
});

describe("train --runs refuses the scorer's flags it has no use for", () => {
  it("--seed, --encoder, --config and --cache-dir are each named, and nothing is written", async () => {
    const out = join(tmp, "prior-with-flags");
    const r = await cli([
      "train",
      "--runs",
      "--dataset",
      runs,
      "--out",
      out,
      "--seed",
      "7",
      "--encoder",
      "use-lite",
      "--config",
      '{"experts":2}',
      "--cache-dir",
      join(tmp, "cache"),
    ]);
    expect(r.code).toBe(2);
    for (const flag of ["--seed", "--encoder", "--config", "--cache-dir"])
      expect(r.stderr).toContain(`${flag} does not apply to --runs`);
    expect(existsSync(out)).toBe(false);
    // --data-root applies to --runs, and the run prior is written without the others
    const ok = await cli(["train", "--runs", "--dataset", runs, "--out", out]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(["run-prior.json"]);
  });
});

describe("an --out that cannot be a folder is refused before any work", () => {
  it("train --out <existing file> (scorer and --runs), and <file>/sub, exit 2 naming --out, before training", async () => {
    for (const argv of [
      ["train", "--runs", "--dataset", runs, "--out", file],
      ["train", "--dataset", runs, "--encoder", "static", "--out", file],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/\[INVALID_ARGUMENT\] --out .*a-file is an existing file, not a folder/);
      expect(r.stderr).not.toMatch(/Training|EEXIST|\n\s+at /);
    }
    const sub = await cli(["train", "--runs", "--dataset", runs, "--out", join(file, "sub")]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/--out .*sub cannot be created: .*a-file is a file, not a folder/);
  });

  it.skipIf(!existsSync("/proc/self"))(
    "an output folder under /proc is refused at once (it used to hang in mkdir): train --out, embed --cache-dir, calibrate --store",
    async () => {
      const cases: [string[], string][] = [
        [["train", "--runs", "--dataset", runs, "--out", "/proc/irt-router-x"], "--out"],
        [["train", "--dataset", runs, "--encoder", "static", "--out", "/proc/irt-router-x"], "--out"],
        [["train", "--dataset", runs, "--out", join(tmp, "s"), "--cache-dir", "/proc/irt-router-x"], "--cache-dir"],
        [["embed", "--dataset", runs, "--cache-dir", "/proc/irt-router-x"], "--cache-dir"],
        [["predict", "--dataset", runs, "--cache-dir", "/proc/irt-router-x"], "--cache-dir"],
        [["calibrate", "--model", "m", "--budget", "3", "--replay", "m", "--store", "/proc/irt-router-x"], "--store"],
      ];
      for (const [argv, flag] of cases) {
        const r = await cli(argv);
        expect(r.code, argv.join(" ")).toBe(2);
        expect(r.stderr).toContain(`${flag} /proc/irt-router-x is on a special filesystem (/proc)`);
      }
    },
    20_000,
  );
});

describe("train on a folder too small to split", () => {
  it("names the folder, its items per split, the split rule and the fix", async () => {
    // ten items of which none falls in val under the protocol's split of this folder name
    const name = "tiny-evals";
    const ids = Array.from({ length: 400 }, (_, i) => `q${i}`)
      .filter((id) => splitOf(name, id) !== "val")
      .slice(0, 10);
    const tiny = join(tmp, name);
    mkdirSync(tiny);
    writeFileSync(
      join(tiny, "items.csv"),
      "item_id,text\n" + ids.map((id) => `${id},What is ${id}?`).join("\n") + "\n",
    );
    writeFileSync(
      join(tiny, "labels.csv"),
      "item_id,model,correct\n" + ids.flatMap((id, i) => [`${id},a,${i % 2}`, `${id},b,1`]).join("\n") + "\n",
    );
    const train = ids.filter((id) => splitOf(name, id) === "train").length;
    const r = await cli(["train", "--dataset", tiny, "--encoder", "static", "--out", join(tmp, "tiny-scorer")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`(${tiny}: 10 items, ${train} train, 0 val, ${10 - train} test)`);
    expect(r.stderr).toMatch(/val is empty/);
    expect(r.stderr).toMatch(/sha256\("<folder name>\/<item id>"\).*val if u < 0\.9/);
    expect(r.stderr).toMatch(/Add items.*--dataset .*tiny-evals --dataset <another>/);
    expect(r.stderr).not.toMatch(/split\.val/);
  }, 60_000);
});

describe("a command name the CLI does not have", () => {
  it("is an unknown command (exit 2), prototype keys included, with the closest command when one is near", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const r = await cli([name]);
      expect(r.code, name).toBe(2);
      expect(r.stderr).toContain(`unknown command "${name}"`);
    }
    expect((await cli(["replya"])).stderr).toContain('unknown command "replya"; did you mean "replay"?');
    expect((await cli(["help", "constructor"])).code).toBe(0); // the general usage, no crash
  });
});

describe("a required text missing is a command-line error", () => {
  it("irt-router explain with no text (or only blanks) exits 2 with the usage, before loading anything", async () => {
    for (const argv of [["explain"], ["explain", "  "], ["explain", "--top", "3"]]) {
      const { code, stderr } = await cli(argv);
      expect(code).toBe(2); // was 1, without the usage
      expect(stderr).toMatch(/^irt-router explain: \[INVALID_ARGUMENT\] Give the query text to explain, e\.g\./);
      expect(stderr).toContain("Usage: ");
    }
  });
});
