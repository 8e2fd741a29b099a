import { describe, expect, it, vi } from "vitest";
import { command as explain } from "../../adapters/cli/commands/explain.js";
import { groupModelScores } from "../../src/scorer/model-groups.js";
import type { CatalogEntry } from "../../src/scorer/types.js";
import { parseWith } from "../../src/util/validate.js";

const entry = (id: string, sources: string[]): CatalogEntry => ({
  id,
  aliases: [],
  sources,
  ability: new Float32Array(2),
  nLabels: 10,
  accuracy: 0.5,
});

describe("groupModelScores", () => {
  const catalog = [
    entry("gpt-4-1106-preview", ["routerbench-subset-11models"]),
    entry("gpt-4-1106-preview@routellm-2models", ["routellm-2models"]),
    entry("claude-v2", ["routerbench-subset-11models"]),
    entry("org/model@x", ["x"]), // an id with "@" whose base has no row of its own stays one model
  ];

  it("puts a model's per-dataset rows under the id to register, the primary row's p first", () => {
    const groups = groupModelScores(catalog, [
      { model: "gpt-4-1106-preview", p: 0.9 },
      { model: "gpt-4-1106-preview@routellm-2models", p: 0.7 },
      { model: "claude-v2", p: 0.95 },
      { model: "org/model@x", p: 0.1 },
    ]);
    expect(groups.map((g) => g.id)).toEqual(["claude-v2", "gpt-4-1106-preview", "org/model@x"]);
    expect(groups[1]).toEqual({
      id: "gpt-4-1106-preview",
      p: 0.9,
      sources: ["routerbench-subset-11models"],
      others: [{ id: "gpt-4-1106-preview@routellm-2models", p: 0.7, sources: ["routellm-2models"] }],
    });
    expect(groups[2]!.others).toEqual([]);
  });
});

describe("irt-router explain on the pretrained scorer", () => {
  async function run(flags: Record<string, unknown>): Promise<string> {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await explain.run(parseWith(explain.schema, flags, "options"), ["What is the capital of France?"])).toBe(
        0,
      );
      return out.mock.calls.map((c) => String(c[0])).join("");
    } finally {
      out.mockRestore();
    }
  }

  it("shows each model once, with its other datasets' rows under it, and --top limits the model rows", async () => {
    const all = JSON.parse(await run({ json: true })) as { models: { id: string; others: { id: string }[] }[] };
    const ids = all.models.map((m) => m.id);
    expect(ids).toContain("gpt-4-1106-preview");
    expect(ids.some((id) => id.startsWith("gpt-4-1106-preview@"))).toBe(false);
    const gpt4 = all.models.find((m) => m.id === "gpt-4-1106-preview")!;
    expect(gpt4.others.map((r) => r.id)).toContain("gpt-4-1106-preview@routellm-2models");

    const top = JSON.parse(await run({ json: true, top: "5" })) as { models: unknown[]; topExperts: unknown[] };
    expect(top.models).toHaveLength(5);
    const text = await run({ top: "3" });
    const modelRows = text.split("\n").filter((l) => /^ {5}\d\.\d{3} {2}\S/.test(l)); // indented rows have 9 spaces
    expect(modelRows).toHaveLength(3);
  });
});
