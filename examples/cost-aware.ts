/**
 * Cost-aware routing: the same prompts under each policy, and a budget policy over one run.
 * Offline (fake chat models stand in for the real ones; prices are the models' list prices).
 *
 *   npx tsx examples/cost-aware.ts
 */
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import type { PolicyConfig } from "../index.js"; // irt-router
import { IrtRouter, type RouteDecision } from "../langchain.js"; // irt-router/langchain
import { exampleScorer } from "./example-scorer.js";

const prompts = [
  "Say hello to my friend Anna.",
  "What is the capital of France?",
  "Prove that there are infinitely many primes.",
  "Write a Python function that returns the n-th Fibonacci number in O(log n).",
  "Compute the integral of x^2 * e^x dx.",
];

function echo(name: string) {
  const model = fakeModel();
  for (let i = 0; i < 50; i++) model.respond(new AIMessage(`(${name} answers)`));
  return model;
}

const models = () => ({
  "gpt-4-1106-preview": { model: echo("gpt-4"), price: { inputPer1M: 10, outputPer1M: 30 } },
  "mistralai/mixtral-8x7b-chat": { model: echo("mixtral"), price: { inputPer1M: 0.6, outputPer1M: 0.6 } },
  "mistralai/mistral-7b-chat": { model: echo("mistral"), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
});
const short = (id: string) =>
  id
    .split("/")
    .pop()!
    .replace(/-1106-preview|-8x7b-chat|-7b-chat/, "");

const { scorer, kind } = await exampleScorer();
console.log(`scorer: ${kind}\n`);

const policies: PolicyConfig[] = [
  { kind: "quality" },
  { kind: "cost-aware", lambda: 20 },
  { kind: "cost-aware", valuePerSuccessUsd: 0.01 },
  { kind: "cheapest-above", tau: 0.7 },
];
console.log(`| policy | ${prompts.map((_, i) => `prompt ${i + 1}`).join(" | ")} | expected cost | mean p |`);
console.log(`|---|${prompts.map(() => "---").join("|")}|---|---|`);
for (const policy of policies) {
  const router = new IrtRouter({ models: models(), scorer, policy });
  const decisions: RouteDecision[] = [];
  for (const prompt of prompts) {
    const reply = await router.invoke(prompt);
    decisions.push(reply.response_metadata.irtRouter as RouteDecision);
  }
  const chosen = decisions.map((d) => d.candidates.find((c) => c.id === d.chosen)!);
  const cost = chosen.reduce((s, c) => s + c.expectedCost, 0);
  const meanP = chosen.reduce((s, c) => s + c.p, 0) / chosen.length;
  console.log(
    `| ${router.policyName} | ${decisions.map((d) => short(d.chosen)).join(" | ")} | $${cost.toFixed(5)} | ${meanP.toFixed(3)} |`,
  );
}

// Budget: one run of many calls; as the run's spend nears the cap, the router moves to cheaper models.
const budget = new IrtRouter({ models: models(), scorer, policy: { kind: "budget", maxUsdPerRun: 0.05 } });
const trail: string[] = [];
for (let i = 0; i < 10; i++) {
  const reply = await budget.invoke(prompts[2 + (i % 3)]!, { metadata: { irtRouterRunId: "budget-run" } });
  trail.push(short((reply.response_metadata.irtRouter as RouteDecision).chosen));
}
console.log(`\n${budget.policyName}, 10 hard calls in one run: ${trail.join(" -> ")}`);
