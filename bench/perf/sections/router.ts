/**
 * `npm run bench -- router`: what IrtRouter adds to a chat-model call. A fake chat model (no network)
 * is timed alone and behind the router in the same process, with the router's item-parameter cache
 * hit (same prompt again) and missed (a new prompt each call: embedding + scorer forward pass).
 * Scorer: the pretrained one with the offline USE-lite encoder; when the artifact is missing, an
 * untrained IrtMoeScorer of the default shape (same arithmetic, so the same cost) with that encoder.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { UseLiteEncoder } from "../../../adapters/encoders/use-lite.js";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import type { Scorer } from "../../../src/scorer/index.js";
import type { QueryEncoder } from "../../../src/encoders/types.js";
import { mdTable, percentile, timeCalls, type BenchSection } from "../section.js";
import { untrainedScorer } from "./untrained-scorer.js";

const MODELS = ["gpt-4-1106-preview", "gpt-3.5-turbo-1106", "mistralai/mixtral-8x7b-chat", "mistralai/mistral-7b-chat"];
const HIT_CALLS = 400;
const MISS_CALLS = 80;

async function scorerAndEncoder(): Promise<{ scorer: Scorer; encoder: QueryEncoder; kind: string }> {
  const encoder = await UseLiteEncoder.load();
  try {
    const { loadPretrained } = await import("../../../adapters/artifact/index.js");
    return { scorer: await loadPretrained({ encoder }), encoder, kind: "pretrained scorer" };
  } catch (error) {
    const scorer = untrainedScorer(encoder, MODELS);
    const why = (error as Error).message.split("\n")[0];
    return {
      scorer,
      encoder,
      kind: `untrained IrtMoeScorer of the default shape (pretrained artifact not loaded: ${why})`,
    };
  }
}

const fake = () => new FakeListChatModel({ responses: ["The answer is 42."] });
const ms = (x: number) => x.toFixed(3);

export async function run(): Promise<BenchSection> {
  const { scorer, encoder, kind } = await scorerAndEncoder();
  const router = new IrtRouter({
    models: Object.fromEntries(MODELS.map((id) => [id, { model: fake(), price: { inputPer1M: 1, outputPer1M: 2 } }])),
    scorer,
    encoder,
    policy: { kind: "cost-aware", lambda: 20 },
    logger: { warn: () => {} },
  });
  const alone = fake();
  const prompt = [
    new HumanMessage("Which of the following best describes the function of the mitochondria in a cell?"),
  ];

  const baseline = await timeCalls(() => alone.invoke(prompt), HIT_CALLS, 20);
  const decisions: RouteDecision[] = [];
  const hit = await timeCalls(
    async () => {
      const r = await router.invoke(prompt);
      decisions.push(r.response_metadata.irtRouter as RouteDecision);
    },
    HIT_CALLS,
    20,
  );
  const hitDecisions = decisions.splice(0);
  let i = 0;
  const miss = await timeCalls(
    async () => {
      // A new prompt every call: misses the router's cache and the encoder's own.
      const r = await router.invoke([
        new HumanMessage(
          `Question ${i++}: which of the following best describes the role of enzyme ${i * 7919} in a cell?`,
        ),
      ]);
      decisions.push(r.response_metadata.irtRouter as RouteDecision);
    },
    MISS_CALLS,
    3,
  );
  const missDecisions = decisions.splice(0);
  const baselineMiss = await timeCalls(() => alone.invoke([new AIMessage("warm"), ...prompt]), MISS_CALLS, 3);

  const b50 = percentile(baseline, 50);
  const b99 = percentile(baseline, 99);
  const bm50 = percentile(baselineMiss, 50);
  const bm99 = percentile(baselineMiss, 99);
  const rows: (string | number)[][] = [
    ["fake model alone", HIT_CALLS, ms(b50), ms(b99), "-", "-"],
    [
      "router, cache hit",
      HIT_CALLS,
      ms(percentile(hit, 50)),
      ms(percentile(hit, 99)),
      ms(percentile(hit, 50) - b50),
      ms(percentile(hit, 99) - b99),
    ],
    [
      "router, cache miss",
      MISS_CALLS,
      ms(percentile(miss, 50)),
      ms(percentile(miss, 99)),
      ms(percentile(miss, 50) - bm50),
      ms(percentile(miss, 99) - bm99),
    ],
  ];
  const parts = (ds: RouteDecision[]) =>
    `encode p50 ${ms(
      percentile(
        ds.map((d) => d.encodeMs),
        50,
      ),
    )} ms, score+rank p50 ${ms(
      percentile(
        ds.map((d) => d.scoreMs),
        50,
      ),
    )} ms`;
  const added = percentile(hit, 50) - b50;
  return {
    title: "Router overhead (IrtRouter over a fake chat model)",
    markdown: [
      `Scorer: ${kind}; encoder ${encoder.id}; ${MODELS.length} candidate models; policy cost-aware(lambda=20).`,
      `Each row times \`invoke\` (ms); "added" is the router row minus the fake model alone, measured in this process.`,
      "",
      mdTable(["call", "n", "p50 ms", "p99 ms", "added p50 ms", "added p99 ms"], rows),
      "",
      `Inside the decision: cache hit ${parts(hitDecisions)}; cache miss ${parts(missDecisions)}.`,
      "",
      `Target: <= 2 ms added at p50 on a cache hit. Measured: ${ms(added)} ms (${added <= 2 ? "met" : "NOT met"}).`,
    ].join("\n"),
  };
}
