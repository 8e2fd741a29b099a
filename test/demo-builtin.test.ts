import { describe, expect, it, vi, afterEach } from "vitest";
import { parseFlagValues } from "../adapters/cli/args.js";
import { agentDemoJson, command } from "../adapters/cli/commands/demo.js";
import { DEMO_SUBTASKS, DEMO_TASKS } from "../src/demo/tasks.js";
import { ValidationError } from "../src/errors.js";
import { parseWith } from "../src/util/validate.js";
import { thrownBy } from "./errors.js";

afterEach(() => vi.unstubAllEnvs());

async function runJson(): Promise<ReturnType<typeof agentDemoJson>> {
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect(await command.run(parseWith(command.schema, { json: true }, "options"), [])).toBe(0);
    return JSON.parse(out.mock.calls.map((c) => String(c[0])).join(""));
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe("the built-in demo (irt-router demo without --replay)", () => {
  it("has at least 40 tasks over five subtasks, each labelled", () => {
    expect(DEMO_TASKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(DEMO_TASKS.map((t) => t.subtask))).toEqual(new Set(DEMO_SUBTASKS));
    expect(new Set(DEMO_TASKS.map((t) => t.id)).size).toBe(DEMO_TASKS.length);
  });

  it("runs with no dataset: every step routed with its candidates, cheaper than always-strongest, and the new model learned", async () => {
    vi.stubEnv("IRT_ROUTER_DATA", "/nonexistent/irt-router-data");
    const report = await runJson();
    expect(report.steps).toHaveLength(DEMO_TASKS.length);
    for (const step of report.steps) {
      expect(step.candidates.length).toBeGreaterThan(1);
      expect(step.chosen).toBe(step.candidates[0]!.id);
    }
    expect(report.routed.spendUsd).toBeLessThan(report.strongestOnly.spendUsd);
    const rounds = report.learning.rounds;
    expect(rounds).toHaveLength(12);
    const share = (rs: typeof rounds) => rs.reduce((s, r) => s + r.shareToNew, 0) / rs.length;
    // Seeded: the new model (as able as the strongest, cheaper) is routed more once feedback has taught the router.
    expect(share(rounds.slice(-3))).toBeGreaterThan(share(rounds.slice(0, 3)));
    expect(await runJson()).toEqual(report); // deterministic
  });

  it("refuses the replay's flags without --replay with the flags, naming the flag", () => {
    const err = thrownBy(ValidationError, () => parseFlagValues(command.schema, { "data-root": "/tmp" }));
    expect(err.path).toBe("options.data-root");
    expect(err.message).toMatch(/^--data-root applies only with --replay/);
  });
});
