/**
 * `irt-router explain "<text>"`: beta (difficulty), the gate's top experts and every catalog model's p
 * for one query, from the pretrained scorer or a saved artifact. A model with rows trained on several datasets is one
 * entry: the p of the id to register, then its other datasets' rows.
 */
import { z } from "zod";
import { positiveIntFlag } from "../flag-schemas.js";
import { groupModelScores } from "../../../src/scorer/model-groups.js";
import { ENCODER_FLAG_USAGE, ENCODER_NEEDS, encoderFlag, loadCommandScorer, withOptionalPackages } from "../scorer.js";
import type { CliCommand } from "../command.js";

const schema = z
  .object({
    model: z.string().min(1).optional(),
    top: positiveIntFlag().optional(),
    json: z.boolean().optional(),
    encoder: encoderFlag,
  })
  .strict();

export const command: CliCommand<typeof schema> = {
  name: "explain",
  summary: "Show a query's difficulty beta, the gate's top experts and every catalog model's p(correct).",
  usage:
    'irt-router explain "<text>" [--model <artifact-dir>|pretrained] [--encoder static|use-lite] [--top N] [--json]\n' +
    "  --top N   show the N best models (default: all) and at most N experts (default: 3)\n" +
    ENCODER_FLAG_USAGE,
  needs: ENCODER_NEEDS,
  options: {
    model: { type: "string" },
    top: { type: "string" },
    json: { type: "boolean" },
    encoder: { type: "string" },
  },
  allowPositionals: true,
  positionalsRequired: 'Give the query text to explain, e.g. irt-router explain "What is 2+2?"',
  schema,
  async run(args, positionals) {
    const text = positionals.join(" ");
    const scorer = await loadCommandScorer(!args.model || args.model === "pretrained" ? undefined : args.model, {
      path: "options.model",
      encoder: args.encoder,
      hint: (mismatch) =>
        `irt-router explain embeds the text with the static encoder or USE-lite only, and this scorer was built with "${mismatch.expected.id}": ` +
        `give --model a scorer built with one of them (irt-router train builds one; without --model the pretrained one is used), or, in the library, load this one with its own encoder ` +
        `(loadScorer(dir, { encoder })) and call scorer.explain(text).`,
    });
    const ex = await withOptionalPackages(
      `irt-router explain with the encoder "${scorer.encoder.id}"`,
      "leave --encoder and --model out to use the static encoder and its pretrained scorer, which need none",
      () => scorer.explain(text),
    );
    const gate = Array.from(ex.gate, (g, k) => ({ expert: k, weight: g })).sort((a, b) => b.weight - a.weight);
    const top = gate.slice(0, args.top ?? 3);
    const models = groupModelScores(scorer.models, ex.scores).slice(0, args.top);
    const alphaNorm = Math.hypot(...ex.alpha);
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ beta: ex.beta, alphaNorm, topExperts: top, models })}\n`);
      return 0;
    }
    const lines = [
      `beta (difficulty): ${ex.beta.toFixed(3)}   |alpha|: ${alphaNorm.toFixed(3)}   temperature: ${scorer.temperature.toFixed(3)}`,
      `top experts: ${top.map((t) => `#${t.expert} ${(t.weight * 100).toFixed(1)}%`).join(", ")} (+ shared expert)`,
      "",
      "p(correct)  model (the id to register with the router; indented: its rows trained on other datasets)",
      ...models.flatMap((g) => [
        `${g.p.toFixed(3).padStart(10)}  ${g.id}`,
        ...g.others.map((r) => `${r.p.toFixed(3).padStart(14)}  ${r.id} (as scored on ${r.sources.join(", ")})`),
      ]),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
};
