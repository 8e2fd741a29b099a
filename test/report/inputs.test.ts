import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { buildFigures } from "../../src/report/build.js";
import { costsFromAgent, costsFromEval, learningFromEvents, parseDecisions } from "../../src/report/inputs.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { thrownBy } from "../errors.js";

const evalJson = JSON.parse(readFileSync("bench/results/eval-routerbench-subset-11models.json", "utf8")) as unknown;

describe("report inputs", () => {
  it("reads an eval --json result: the single models and every cost-aware method's curve", () => {
    const c = costsFromEval(evalJson);
    expect(c.per).toBe("query");
    expect(c.singles).toHaveLength(11);
    expect(c.policies.map((p) => p.name)).toContain("irt-moe");
    expect(c.policies.find((p) => p.name === "irt-moe")!.points.length).toBeGreaterThan(10);
  });

  it("names the flag and the field of a malformed eval or agent file", () => {
    const e = thrownBy(ValidationError, () => costsFromEval({ dataset: "x", methods: [] }));
    expect(e.path).toBe("--eval.costReference");
    expect(thrownBy(ValidationError, () => costsFromAgent({ rows: [] })).path).toMatch(/^--agent\./);
  });

  it("reads a bench:agent result, single-model rows apart", () => {
    const c = costsFromAgent({
      dataset: "d",
      strongest: "big",
      rows: [
        { name: "always:big", success: 0.8, costPerRun: 0.1 },
        { name: "irt-router", success: 0.78, costPerRun: 0.03 },
      ],
    });
    expect(c.singles.map((s) => s.name)).toEqual(["always:big"]); // bench/agent/experiment.ts names them so
    expect(c.policies).toEqual([{ name: "irt-router", points: [{ name: "irt-router", cost: 0.03, accuracy: 0.78 }] }]);
  });

  it("reads a decision log as JSON Lines or as the built-in demo's --json document", () => {
    const lines = parseDecisions('{"model":"a","category":"math","p":0.8,"ok":true}\n\n{"model":"b"}\n', "log");
    expect(lines.decisions.rows).toEqual([
      { model: "a", category: "math" },
      { model: "b", category: "uncategorised" },
    ]);
    expect(lines.reliability).toEqual({ dataset: "log", p: [0.8], y: [1] });
    const demo = parseDecisions(
      JSON.stringify({ steps: [{ chosen: "m", subtask: "coding", candidates: [{ id: "m", p: 0.6 }], ok: false }] }),
      "demo",
    );
    expect(demo.decisions.rows).toEqual([{ model: "m", category: "coding" }]);
    expect(demo.reliability).toEqual({ dataset: "demo", p: [0.6], y: [0] });
    expect(thrownBy(ValidationError, () => parseDecisions("{}\nnot json", "x")).message).toMatch(/line 2 is not JSON/);
    expect(thrownBy(ValidationError, () => parseDecisions('{"model":"a","p":2}', "x")).path).toMatch(/p$/);
  });

  it("replays a store's events: the uncertainty of the answering model shrinks, shares sum to one per window", () => {
    const known = [
      { id: "a", ability: [0.5, 0] },
      { id: "b", ability: [0, 0.5] },
    ];
    const events: FeedbackEvent[] = Array.from({ length: 60 }, (_, i) => ({
      id: `e${i}`,
      model: i % 3 === 0 ? "b" : "new",
      alpha: [1, 0.5],
      beta: 0,
      y: i % 2,
      at: i,
    }));
    const l = learningFromEvents({ events }, known, "s", 6);
    const fresh = l.curves.filter((c) => c.model === "new");
    expect(fresh[0]!.events).toBe(10); // added at its first event
    expect(fresh[fresh.length - 1]!.sd).toBeLessThan(fresh[0]!.sd);
    const windows = new Map<number, number>();
    for (const s of l.share) windows.set(s.events, (windows.get(s.events) ?? 0) + s.share);
    expect([...windows.keys()]).toEqual([10, 20, 30, 40, 50, 60]);
    for (const total of windows.values()) expect(total).toBeCloseTo(1, 10);
  });

  it("draws what the inputs allow and names the input for each figure left out", () => {
    const { figures, omitted } = buildFigures({
      scorerName: "s",
      abilities: [
        { id: "a", ability: [1, 0] },
        { id: "b", ability: [0, 1] },
      ],
      costs: costsFromEval(evalJson),
    });
    expect(figures.map((f) => f.id)).toEqual(["ability-heatmap", "ability-projection", "frontier"]);
    expect(omitted.map((o) => o.id)).toEqual([
      "difficulty",
      "reliability",
      "routing-share",
      "decision-costs",
      "learning-ability",
      "learning-share",
    ]);
    expect(omitted.find((o) => o.id === "learning-ability")!.needs).toMatch(/--store/);
    for (const f of figures) expect(f.caption.length).toBeGreaterThan(40);
  });
});
