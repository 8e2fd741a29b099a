import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listFlag, parseFlags, positiveIntFlag } from "../../bench/flags.js";
import { ValidationError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";

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
