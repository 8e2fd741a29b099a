/**
 * Replicas: two routers (standing for two processes of one app) share learning state, decisions and budgets through
 * one Redis. Router A routes a run; router B records its outcome (B never saw the run); A's routing reflects it.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/replicas.ts
 *
 * Needs a Redis server (`apt-get install redis-server`, or `docker run -p 6379:6379 redis`) and the optional
 * dependency `npm install ioredis`. Without a reachable server it says so and exits 0.
 */
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RedisStore } from "../adapters/index.js";
import { StoreError } from "../src/index.js";
import { IrtRouter, type RouteDecision } from "../src/langchain/index.js";
import { exampleScorer } from "./example-scorer.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `replicas-example-${Date.now()}`; // a fresh prefix per run: each run starts from the prior

async function replica(): Promise<{ router: IrtRouter; store: RedisStore }> {
  const store = await RedisStore.open({ url, prefix, timeouts: { connectMs: 2000 } });
  const { scorer } = await exampleScorer();
  const router = new IrtRouter({
    models: {
      "gpt-4-1106-preview": {
        model: new FakeListChatModel({ responses: ["[gpt-4] 42"] }),
        price: { inputPer1M: 10, outputPer1M: 30 },
      },
      "mistralai/mistral-7b-chat": {
        model: new FakeListChatModel({ responses: ["[mistral] 42"] }),
        price: { inputPer1M: 0.2, outputPer1M: 0.2 },
      },
    },
    scorer,
    store, // restores the learner from Redis, journals feedback there, follows the other replicas
  });
  return { router, store };
}

let a: Awaited<ReturnType<typeof replica>>;
let b: Awaited<ReturnType<typeof replica>>;
try {
  a = await replica();
  b = await replica();
} catch (error) {
  if (!(error instanceof StoreError)) throw error;
  console.log(
    `no Redis reachable at ${url} (${error.message.split("\n")[0]}); start one (redis-server) or set REDIS_URL.`,
  );
  process.exit(0);
}

const question = "Prove that the square root of 2 is irrational.";
const pOf = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)!.p;
const route = async (r: IrtRouter, runId: string) =>
  (await r.invoke(question, { metadata: { irtRouterRunId: runId } })).response_metadata.irtRouter as RouteDecision;

// Replica A routes two steps of a run.
const first = await route(a.router, "replicas-run-1");
await route(a.router, "replicas-run-1");
console.log(`A routed run replicas-run-1 to ${first.chosen} (p=${pOf(first, first.chosen).toFixed(4)})`);

// Replica B records the run's outcome: it reads A's decisions from Redis.
const events = await b.router.feedback("replicas-run-1", false);
console.log(`B recorded ${events.length} event(s) for a run it never routed`);

// A applies B's events from the shared stream within milliseconds; its next decision reflects them.
let after = await route(a.router, "replicas-run-2");
for (let i = 0; i < 50 && pOf(after, first.chosen) === pOf(first, first.chosen); i++) {
  await new Promise((r) => setTimeout(r, 20));
  after = await route(a.router, "replicas-run-2");
}
console.log(`A now gives ${first.chosen} p=${pOf(after, first.chosen).toFixed(4)} (lowered by B's feedback)`);

await a.store.close();
await b.store.close();
