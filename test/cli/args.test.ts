import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../adapters/cli/args.js";
import { command as calibrate, catalogIdentity } from "../../adapters/cli/commands/calibrate.js";
import { command as evalCommand } from "../../adapters/cli/commands/eval.js";
import { command as predict } from "../../adapters/cli/commands/predict.js";
import { command as replay } from "../../adapters/cli/commands/replay.js";
import { command as train, pretrainedOutProblem, trainOutDir } from "../../adapters/cli/commands/train.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { ValidationError } from "../../src/errors.js";
import type { CatalogEntry } from "../../src/scorer/types.js";
import { parseWith } from "../../src/util/validate.js";
import { thrownBy } from "../errors.js";

const rejection = (fn: () => unknown) => thrownBy(ValidationError, fn);

describe("CLI argument parsing", () => {
  const cmd = { name: "eval", options: evalCommand.options };

  it("names an unknown flag and suggests the close one", () => {
    const e = rejection(() => parseCliArgs(cmd, ["--datset", "x"]));
    expect(e.path).toBe("options.datset");
    expect(e.message).toMatch(/did you mean --dataset\?/);
    expect(rejection(() => parseCliArgs(cmd, ["--zzzzzz"])).message).not.toMatch(/did you mean/);
  });

  it("names a flag without its value, a value starting with a dash, a value on a switch and a stray argument", () => {
    expect(rejection(() => parseCliArgs(cmd, ["--dataset"]))).toMatchObject({ path: "options.dataset" });
    expect(rejection(() => parseCliArgs(cmd, ["--seeds", "-3"])).message).toMatch(/--seeds=<value>/);
    expect(rejection(() => parseCliArgs(cmd, ["--json=false"]))).toMatchObject({ path: "options.json" });
    expect(rejection(() => parseCliArgs(cmd, ["extra", "--dataset", "x"])).message).toMatch(
      /unexpected argument "extra"/,
    );
  });

  it("refuses a single-value flag given twice instead of keeping the last", () => {
    const e = rejection(() => parseCliArgs(cmd, ["--dataset", "a", "--dataset", "b"]));
    expect(e.path).toBe("options.dataset");
    expect(e.message).toMatch(/"a" and "b"/);
    expect(rejection(() => parseCliArgs(cmd, ["--json", "--json"])).path).toBe("options.json");
    // a repeatable flag stays repeatable
    expect(
      parseCliArgs({ name: "train", options: train.options }, ["--dataset", "a", "--dataset", "b"]).values.dataset,
    ).toEqual(["a", "b"]);
  });
});

describe("CLI option rules", () => {
  const parse = (c: { schema: Parameters<typeof parseWith>[0] }, v: Record<string, unknown>) => () =>
    parseWith(c.schema, v, "options");

  it("train: --dataset does not combine with --pretrained, and no dataset twice", () => {
    expect(rejection(parse(train, { pretrained: true, dataset: ["x"] })).path).toBe("options.dataset");
    expect(rejection(parse(train, { dataset: ["x", "x"], out: "o" })).message).toMatch(/twice/);
    expect(parse(train, { pretrained: true })()).toMatchObject({ pretrained: true });
  });

  it("train --pretrained needs --out when the package is installed (never writes into node_modules), and its usage lists every flag it takes", () => {
    const installed = "/app/node_modules/irt-router";
    const problem = pretrainedOutProblem({ pretrained: true }, installed);
    expect(problem).toMatch(/^is required with --pretrained in an installed package: .*give --out <dir>/);
    expect(problem).toContain(join(installed, "pretrained"));
    expect(pretrainedOutProblem({ pretrained: true, out: "mine" }, installed)).toBeUndefined();
    expect(pretrainedOutProblem({ out: "mine" }, installed)).toBeUndefined();
    expect(trainOutDir({ pretrained: true, out: "mine" })).toBe("mine");
    // a source checkout retrains its own pretrained/
    expect(pretrainedOutProblem({ pretrained: true })).toBeUndefined();
    expect(trainOutDir({ pretrained: true })).toBe(join(packageRoot(), "pretrained"));
    // the static encoder's pretrained scorer lives beside it
    expect(trainOutDir({ pretrained: true, encoder: "static" })).toBe(join(packageRoot(), "pretrained", "static"));
    expect(trainOutDir({ pretrained: true, encoder: "use-lite" })).toBe(join(packageRoot(), "pretrained"));
    const pretrainedUsage = train.usage.split("\n").find((l) => l.includes("--pretrained"))!;
    for (const flag of ["--out", "--seed", "--data-root", "--cache-dir", "--config", "--encoder"])
      expect(pretrainedUsage).toContain(flag);
  });

  it("eval and train: --encoder takes static or use-lite", () => {
    expect(parse(evalCommand, { dataset: "d", encoder: "static" })()).toMatchObject({ encoder: "static" });
    expect(parse(train, { pretrained: true, encoder: "use-lite" })()).toMatchObject({ encoder: "use-lite" });
    expect(rejection(parse(evalCommand, { dataset: "d", encoder: "bert" })).path).toBe("options.encoder");
    expect(rejection(parse(train, { pretrained: true, encoder: "bert" })).path).toBe("options.encoder");
  });

  it("eval: --model only with the irt-moe method", () => {
    expect(rejection(parse(evalCommand, { dataset: "d", model: "pretrained", methods: "knn" })).path).toBe(
      "options.model",
    );
    expect(parse(evalCommand, { dataset: "d", model: "pretrained", methods: "knn,irt-moe" })()).toMatchObject({
      model: "pretrained",
    });
  });

  it("calibrate: endpoint flags only with --endpoint, an http(s) endpoint, a decimal target sd, a required budget", () => {
    expect(rejection(parse(calibrate, { model: "m", budget: "5", replay: "x", "endpoint-model": "y" })).path).toBe(
      "options.endpoint-model",
    );
    expect(rejection(parse(calibrate, { model: "m", budget: "5", replay: "x", "api-key-env": "KEY" })).path).toBe(
      "options.api-key-env",
    );
    expect(rejection(parse(calibrate, { model: "m", budget: "5", endpoint: "ftp://host/v1" })).path).toBe(
      "options.endpoint",
    );
    for (const bad of ["", " ", "0x1", "abc", "1.5"])
      expect(rejection(parse(calibrate, { model: "m", budget: "5", replay: "x", "target-sd": bad })).path).toBe(
        "options.target-sd",
      );
    expect(parse(calibrate, { model: "m", budget: "5", replay: "x", "target-sd": "0.02" })()).toMatchObject({
      "target-sd": 0.02,
    });
    expect(parse(calibrate, { model: "m", budget: "5", replay: "x", "target-sd": "5e-3" })()).toMatchObject({
      "target-sd": 0.005,
    });
    expect(rejection(parse(calibrate, { model: "m", replay: "x" })).message).toMatch(/is required/);
  });

  it("calibrate, replay, predict and train: integer flags take the shared rules, and an error names the flag", () => {
    const cases: [{ schema: Parameters<typeof parseWith>[0] }, Record<string, unknown>, string, RegExp][] = [
      [calibrate, { model: "m", budget: "0", replay: "x" }, "budget", /positive integer \(the maximum number of probe/],
      [calibrate, { model: "m", budget: "5", replay: "x", "bank-size": "1.5" }, "bank-size", /positive integer/],
      [calibrate, { model: "m", budget: "5", replay: "x", seed: "-1" }, "seed", /non-negative integer/],
      [replay, { dataset: "d", seeds: "0" }, "seeds", /positive integer \(cross-fit seeds/],
      [replay, { dataset: "d", "online-seeds": "2x" }, "online-seeds", /positive integer \(online seeds/],
      [predict, { dataset: "d", probes: "-2" }, "probes", /non-negative integer \(probe results per model/],
      [train, { pretrained: true, seed: "one" }, "seed", /non-negative integer/],
    ];
    for (const [command, values, flag, message] of cases) {
      const e = rejection(parse(command, values));
      expect(e.path).toBe(`options.${flag}`);
      expect(e.message).toMatch(message);
    }
    expect(rejection(parse(calibrate, { model: "m", replay: "x" })).message).toMatch(
      /budget: is required: the maximum number of probe questions/,
    );
    expect(parse(calibrate, { model: "m", budget: "40", replay: "x", seed: "0" })()).toMatchObject({
      budget: 40,
      seed: 0,
    });
    expect(parse(replay, { dataset: "d", seeds: "3", "online-seeds": "7" })()).toMatchObject({
      seeds: 3,
      "online-seeds": 7,
    });
    expect(parse(predict, { dataset: "d", probes: "0" })()).toMatchObject({ probes: 0, seed: 0 });
    expect(parse(train, { pretrained: true, seed: "12" })()).toMatchObject({ seed: 12 });
  });

  it("calibrate: an alias resolves to its catalog id; an unknown id is a new model, with the close known ids named", () => {
    const entry = (id: string, aliases: string[]): CatalogEntry => ({
      id,
      aliases,
      sources: ["t"],
      ability: new Float32Array(2),
      nLabels: 1,
      accuracy: 0.5,
    });
    const catalog = [entry("gpt-4-1106-preview", ["gpt-4"]), entry("mistral-7b-chat", [])];
    expect(catalogIdentity(catalog, "gpt-4-1106-preview")).toEqual({ id: "gpt-4-1106-preview" });
    expect(catalogIdentity(catalog, "gpt-4")).toMatchObject({
      id: "gpt-4-1106-preview",
      note: expect.stringMatching(/catalog model/),
    });
    const typo = catalogIdentity(catalog, "gpt-4-1106-previw");
    expect(typo.id).toBe("gpt-4-1106-previw");
    expect(typo.note).toMatch(/new model.*gpt-4-1106-preview/);
  });
});
