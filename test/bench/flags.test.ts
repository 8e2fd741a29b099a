import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  decimalFlag,
  listFlag,
  MAX_SEEDS,
  nonNegativeIntFlag,
  parseFlags,
  positiveDecimalFlag,
  positiveIntFlag,
  runsFlag,
  jsonArgument,
  scriptFlags,
  seedListFlag,
  seedsFlag,
  seedsForFlag,
} from "../../bench/flags.js";
import { ValidationError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";

afterEach(() => vi.restoreAllMocks());

/** The flags of a study like bench:predict's. */
const specs = { datasets: { type: "string" }, seeds: { type: "string" }, json: { type: "boolean" } } as const;
const schema = z
  .object({
    datasets: listFlag(z.enum(["a", "b"])).optional(),
    seeds: positiveIntFlag().default(3),
    json: z.boolean().default(false),
  })
  .strict();
const parse = (args: string[]) => parseFlags("bench:x", specs, schema, args);

describe("the studies' flag parser", () => {
  it("parses lists, positive integers and switches, with the schema's defaults", () => {
    expect(parse(["--datasets", " a, ,b", "--seeds", "5", "--json"])).toEqual({
      datasets: ["a", "b"],
      seeds: 5,
      json: true,
    });
    expect(parse([])).toEqual({ seeds: 3, json: false });
  });

  it("names the flag of a bad value", () => {
    expect(thrownBy(ValidationError, () => parse(["--seeds", "0"]))).toMatchObject({ path: "options.seeds" });
    expect(thrownBy(ValidationError, () => parse(["--datasets", "a,c"]))).toMatchObject({
      path: "options.datasets.1",
    });
    expect(thrownBy(ValidationError, () => parse(["--datasets", " , "]))).toMatchObject({ path: "options.datasets" });
  });

  it("names an unknown, repeated or valueless flag and lists the flags (a study has no --help)", () => {
    const unknown = thrownBy(ValidationError, () => parse(["--sedes", "3"]));
    expect(unknown.path).toBe("options.sedes");
    expect(unknown.message).toMatch(/did you mean --seeds\?.*the options are --datasets, --seeds, --json/);
    expect(thrownBy(ValidationError, () => parse(["--seeds", "1", "--seeds", "2"])).path).toBe("options.seeds");
    expect(thrownBy(ValidationError, () => parse(["--seeds"])).path).toBe("options.seeds");
    expect(thrownBy(ValidationError, () => parse(["stray"])).message).toMatch(/bench:x takes only --options/);
  });
});

describe("the studies' number flags, with the CLI's bounds", () => {
  /** The value of one flag `--v` read with `flag`. */
  const one = (flag: z.ZodType, value: string | undefined): unknown =>
    parseFlags<z.ZodType<{ v: unknown }>>(
      "bench:x",
      { v: { type: "string" } },
      z.object({ v: flag }),
      value === undefined ? [] : ["--v", value],
    ).v;
  const refused = (flag: z.ZodType, value: string) =>
    thrownBy(ValidationError, () => one(flag, value)).message.replace(/^--v /, "");

  it("a valid value is the number Number() read before, and a default is the same number", () => {
    for (const text of ["1", "5", "20", "1000"]) expect(one(seedsFlag(3), text)).toBe(Number(text));
    expect(one(seedsFlag(3), undefined)).toBe(3);
    for (const text of ["0", "0.5", "1", "1.25", "1e-3", ".5", "32"])
      expect(one(decimalFlag(), text)).toBe(Number(text));
    expect(one(seedListFlag(), "1,2,3,4,5")).toEqual("1,2,3,4,5".split(",").map(Number));
    expect(`${one(seedListFlag(), "1,2,3")}`).toBe("1,2,3"); // printed as the flag was typed
    expect(one(listFlag(nonNegativeIntFlag()), "0,250,1000,2000")).toEqual([0, 250, 1000, 2000]);
    expect(one(runsFlag(400), "400")).toBe(400);
    expect(one(runsFlag(2000, 0), "0")).toBe(0);
  });

  it("--seeds counts at most MAX_SEEDS (1000, the CLI's replay --seeds), or a study's own lower cap", () => {
    expect(MAX_SEEDS).toBe(1000);
    expect(one(seedsFlag(5), "1000")).toBe(1000);
    expect(refused(seedsFlag(5), "1001")).toBe("must be at most 1000");
    expect(refused(seedsFlag(5), "99999999999999999999")).toBe("must be at most 1000");
    expect(refused(seedsFlag(5), "0")).toBe("must be a positive integer");
    expect(refused(seedsFlag(5), "2.5")).toBe("must be a positive integer");
    expect(refused(seedsFlag(5), "abc")).toBe("must be a positive integer");
    expect(refused(seedsFlag(5, 20), "21")).toBe("must be at most 20");
    expect(refused(seedListFlag(), "1,x")).toBe("(item 2) must be a non-negative integer");
    expect(refused(seedListFlag(), Array.from({ length: 1001 }, (_, k) => k).join(","))).toBe("must list at most 1000");
  });

  it("run counts, decimals and bounds name the limit", () => {
    expect(refused(runsFlag(400), "5")).toBe("must be at least 10");
    expect(refused(runsFlag(400), "100001")).toBe("must be at most 100000");
    expect(refused(decimalFlag(), "-1")).toMatch(/value starts with "-"/);
    expect(refused(decimalFlag(), "1,5")).toBe("must be a decimal number");
    expect(refused(positiveDecimalFlag(), "0")).toBe("must be greater than 0");
    expect(refused(positiveDecimalFlag(100), "101")).toBe("must be at most 100");
    expect(refused(positiveIntFlag(undefined, { min: 2, max: MAX_SEEDS }), "1")).toBe("must be at least 2");
  });

  it("--seeds-for name=1,2 (repeatable) is a map of seed lists; a bad one names the flag", () => {
    const parse = (args: string[]) =>
      parseFlags(
        "bench:x",
        { "seeds-for": { type: "string", multiple: true } },
        z.object({ "seeds-for": seedsForFlag() }),
        args,
      )["seeds-for"];
    expect(parse([])).toEqual(new Map());
    expect(parse(["--seeds-for", "a=1,2", "--seeds-for", "b=3"])).toEqual(
      new Map([
        ["a", [1, 2]],
        ["b", [3]],
      ]),
    );
    expect(thrownBy(ValidationError, () => parse(["--seeds-for", "a"])).message).toMatch(
      /^--seeds-for \(item 1\) takes a dataset and its seeds: name=1,2,\.\.\./,
    );
    expect(thrownBy(ValidationError, () => parse(["--seeds-for", "a=1,x"])).message).toMatch(
      /^--seeds-for \(item 1\).* must be a non-negative integer/,
    );
  });
});

describe("a study's own command line (scriptFlags)", () => {
  const flags = { seeds: { type: "string" } } as const;
  const schema = z.object({ seeds: seedsFlag(5) }).strict();

  it("returns the values, as parseFlags", () => {
    expect(scriptFlags("bench:x", flags, schema, ["--seeds", "7"])).toEqual({ seeds: 7 });
  });

  it("a bad flag: the message naming it on stderr and exit 2, as the CLI", () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    expect(() => scriptFlags("bench:x", flags, schema, ["--seeds", "1001"])).toThrow("exit 2");
    expect(exit).toHaveBeenCalledWith(2);
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toBe(
      "bench:x: [INVALID_ARGUMENT] --seeds must be at most 1000\n",
    );
  });

  it("a study run with a bad number exits 2 before any work (bench/dev/run-robustness.ts --draws)", () => {
    for (const [value, message] of [
      ["1001", "--draws must be at most 1000"],
      ["0", "--draws must be a positive integer"],
    ]) {
      const r = spawnSync(process.execPath, ["--import", "tsx", "bench/dev/run-robustness.ts", "--draws", value!], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toBe(`bench/dev/run-robustness.ts: [INVALID_ARGUMENT] ${message}\n`);
      expect(r.stdout).toBe("");
    }
  }, 60_000);
});

describe("a study's JSON argument (jsonArgument)", () => {
  const schema = z.strictObject({ seeds: z.number().int().min(1).max(MAX_SEEDS).optional() });

  it("returns the checked value", () => {
    expect(jsonArgument("bench:x", schema, ['{"seeds": 3}'], "{}")).toEqual({ seeds: 3 });
    expect(jsonArgument("bench:x", schema, [], '{"seeds": 2}')).toEqual({ seeds: 2 });
  });

  it("no JSON, a misspelt key or a bad value: the place and problem on stderr, exit 2", () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    for (const [text, said] of [
      ["{seeds: 3}", /^bench:x: the argument \(an object\) was refused: not JSON \(/],
      ['{"sedes": 3}', /refused: \(the whole\) Unrecognized key: "sedes"\n$/],
      ['{"seeds": 5000}', /refused: seeds Too big: expected number to be <=1000\n$/],
    ] as const) {
      err.mockClear();
      expect(() => jsonArgument("bench:x", schema, [text], "{}", "an object")).toThrow("exit 2");
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(said);
    }
    err.mockClear(); // a flag after the JSON was ignored
    expect(() => jsonArgument("bench:x", schema, ['{"seeds": 3}', "--seeds", "500"], "{}")).toThrow("exit 2");
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(/one argument is taken, got 3/);
  });
});
