import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { UnknownModelWarning } from "../../src/errors.js";
import { ToyScorer } from "./helpers.js";
import "../../index.js"; // the package root: registers the default (pretrained) scorer loader

/** Twenty prompts from chit-chat to hard maths and code; the last ten are the hard ones. */
const EASY = [
  "hi there!",
  "Thanks, that was helpful.",
  "What's a good name for a golden retriever puppy?",
  "Say good morning in French.",
  "What colour do you get when you mix blue and yellow?",
  "Give me a synonym for happy.",
  "How many days are in a week?",
  "Write a one-line birthday wish for my sister.",
  "What is the capital of Italy?",
  "Tell me a short joke about cats.",
];
const HARD = [
  "Prove that there are infinitely many primes p such that p + 2 is also prime, or explain precisely why this is open.",
  "Let f be a continuous function on [0,1] with integral of x^n f(x) dx = 0 for all n >= 0. Prove that f is identically zero.",
  "Compute the number of lattice paths from (0,0) to (10,10) that never go above the diagonal, and justify the formula.",
  "Find all real solutions of x^4 - 10x^2 + 9 = 0 and prove there are no others.",
  "Implement a lock-free multi-producer multi-consumer queue in C++ with correct memory ordering and explain the ABA problem.",
  "Write a Rust function that parses a context-free grammar in BNF and builds an LR(1) parsing table; handle conflicts.",
  "Derive the closed form of the expected number of comparisons of randomized quicksort and prove it is 2n ln n + O(n).",
  "A thermodynamic cycle has two isotherms at 300 K and 600 K and two adiabats; derive its efficiency for an ideal gas.",
  "Given a weighted directed graph with negative edges, give an O(VE) algorithm to detect a negative cycle and print it.",
  "Prove that every finite group of order p^2, with p prime, is abelian.",
];
const MODELS = [
  "gpt-4o",
  "gpt-4o-mini",
  "claude-3-5-sonnet",
  "claude-sonnet-4-5",
  "claude-haiku-4-5",
  "gpt-5",
  "gpt-5-mini",
];

function router(policy?: ConstructorParameters<typeof IrtRouter>[0]["policy"], warnings: unknown[][] = []) {
  return new IrtRouter({
    models: Object.fromEntries(MODELS.map((id) => [id, new FakeListChatModel({ responses: ["ok"] })])),
    ...(policy ? { policy } : {}),
    logger: { warn: (...args: unknown[]) => void warnings.push(args) },
  });
}

const pOf = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)!.p;

describe("current models with the default scorer, untrained by the user", () => {
  it("ranks each strong model above its small sibling on every hard prompt, with no warning", async () => {
    const warnings: unknown[][] = [];
    const r = router(undefined, warnings);
    for (const prompt of HARD) {
      const d = await r.decide(prompt);
      expect(pOf(d, "gpt-4o"), prompt).toBeGreaterThan(pOf(d, "gpt-4o-mini"));
      expect(pOf(d, "claude-sonnet-4-5"), prompt).toBeGreaterThan(pOf(d, "claude-haiku-4-5"));
      expect(pOf(d, "gpt-5"), prompt).toBeGreaterThan(pOf(d, "gpt-5-mini"));
      for (const c of d.candidates) expect(c.prior?.method, c.id).toMatch(/^(published|terminal-bench)$/);
    }
    expect(warnings).toEqual([]);
  });

  it("gives different models different p (no ties) and records where each prior came from", async () => {
    const d = await router().decide(HARD[0]!);
    const ps = d.candidates.map((c) => c.p);
    expect(new Set(ps).size).toBe(ps.length);
    const sonnet = d.candidates.find((c) => c.id === "claude-3-5-sonnet")!;
    expect(sonnet.prior).toEqual({ method: "published", source: expect.stringMatching(/simple-evals/) });
  });

  it("the cost-aware policy does not always pick the cheapest model, nor always the dearest", async () => {
    const r = router({ kind: "cost-aware", valuePerSuccessUsd: 0.1 });
    const chosen = new Map<string, string>();
    for (const prompt of [...EASY, ...HARD]) chosen.set(prompt, (await r.decide(prompt)).chosen);
    const picks = new Set(chosen.values());
    expect(picks.size, JSON.stringify([...chosen])).toBeGreaterThan(1);
    // The cheapest by list price is gpt-5-mini (0.25 / 2 per 1M); the dearest claude-3-5-sonnet / sonnet-4-5.
    expect([...chosen.values()].every((c) => c === "gpt-5-mini")).toBe(false);
  });
});

describe("a model the catalog does not know", () => {
  it("gets a typed warning naming it, its prior and the calibrate command, once", async () => {
    const warnings: unknown[][] = [];
    const r = new IrtRouter({
      models: {
        "acme/my-finetune-v3": {
          model: new FakeListChatModel({ responses: ["ok"] }),
          price: { inputPer1M: 0.5, outputPer1M: 1.5 },
        },
        "gpt-4o-mini": new FakeListChatModel({ responses: ["ok"] }),
      },
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
    });
    const d = await r.decide(HARD[1]!);
    await r.decide(HARD[2]!);
    expect(warnings.length).toBe(1);
    const [message, warning] = warnings[0] as [string, UnknownModelWarning];
    expect(warning).toBeInstanceOf(UnknownModelWarning);
    expect(warning.code).toBe("UNKNOWN_MODEL");
    expect(warning.model).toBe("acme/my-finetune-v3");
    expect(warning.prior.method).toBe("family-tier");
    expect(warning.prior.mmluEquivalent).toBeGreaterThan(50);
    expect(warning.command).toMatch(/^npx irt-router calibrate --model "acme\/my-finetune-v3" --budget \d+/);
    expect(message).toContain('"acme/my-finetune-v3" is not in the model catalog');
    expect(message).toContain(warning.command);
    const unknown = d.candidates.find((c) => c.id === "acme/my-finetune-v3")!;
    expect(unknown.prior?.method).toBe("family-tier");
    expect(unknown.p).not.toBe(pOf(d, "gpt-4o-mini"));
  });

  it("without a price, starts at the population average, and says so", async () => {
    const warnings: unknown[][] = [];
    const r = new IrtRouter({
      models: {
        "my-local-model": new FakeListChatModel({ responses: ["ok"] }),
        "gpt-4o": new FakeListChatModel({ responses: ["ok"] }),
      },
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
    });
    const d = await r.decide("hello");
    const typed = warnings.map((w) => w[1]).filter((w) => w instanceof UnknownModelWarning);
    expect(typed.length).toBe(1);
    expect((typed[0] as UnknownModelWarning).prior.method).toBe("population");
    expect(d.candidates.find((c) => c.id === "my-local-model")!.prior?.method).toBe("population");
  });

  it("a catalog model without data is warned about as such, with its family and price-tier prior", async () => {
    const warnings: unknown[][] = [];
    const r = new IrtRouter({
      models: {
        "anthropic/claude-3-7-sonnet-latest": new FakeListChatModel({ responses: ["ok"] }),
        "gpt-4o": new FakeListChatModel({ responses: ["ok"] }),
      },
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
    });
    const d = await r.decide(HARD[3]!);
    const [message, warning] = warnings[0] as [string, UnknownModelWarning];
    expect(warning.catalogId).toBe("claude-3-7-sonnet");
    expect(message).toContain('is in the model catalog as "claude-3-7-sonnet" but no data measures it');
    expect(d.candidates.find((c) => c.id === "anthropic/claude-3-7-sonnet-latest")!.expectedCost).toBeGreaterThan(0);
  });

  it("with a custom scorer, a catalog model is warned about: its prior is not fitted for that scorer", async () => {
    const warnings: unknown[][] = [];
    const r = new IrtRouter({
      models: {
        "gpt-4o": new FakeListChatModel({ responses: ["ok"] }),
        mistral: new FakeListChatModel({ responses: ["ok"] }),
      },
      scorer: new ToyScorer(),
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
    });
    const d = await r.decide("What is 2 + 2?");
    const [message, warning] = warnings[0] as [string, UnknownModelWarning];
    expect(warning.prior.method).toBe("population");
    expect(message).toContain('"gpt-4o" is in the model catalog as "gpt-4o", but the catalog\'s priors are fitted');
    const gpt4o = d.candidates.find((c) => c.id === "gpt-4o")!;
    expect(gpt4o.expectedCost).toBeGreaterThan(0); // the catalog's list price
    expect(gpt4o.prior?.method).toBe("population");
  });
});
