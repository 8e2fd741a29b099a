/**
 * A call inside createAgent honours its `timeout` whatever the child does and whenever a GC runs (issue 39): LangChain
 * turns `timeout` into `AbortSignal.any([signal, AbortSignal.timeout(ms)])`, and Node holds the timeout source of
 * `any()` weakly (nodejs/node#57736), so after a full GC that signal may never fire; the middleware arms a timer of its
 * own for what is left of the call's timeout.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { irtRouterMiddleware } from "../../../src/langchain/index.js";
import { HungModel, ToyScorer } from "../helpers.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const TIMEOUT_MS = 300;
/** Far beyond the timeout plus any scheduling delay, far below the router's 10-minute attempt timeout. */
const HUNG_MS = 5_000;

describe("createAgent with irtRouterMiddleware: the call's timeout", () => {
  it("10 of 10 calls settle within the timeout plus a margin though a full GC runs during each", async () => {
    const middleware = irtRouterMiddleware({
      models: { "gpt-4": new HungModel({}), mistral: new HungModel({}) },
      scorer: new ToyScorer(),
    });
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    const outcomes: string[] = [];
    for (let trial = 0; trial < 10; trial++) {
      let hung: ReturnType<typeof setTimeout> | undefined;
      const collect = setInterval(gc, 50); // full collections while the call is in flight
      const outcome = await Promise.race([
        agent.invoke({ messages: [{ role: "user", content: `question ${trial}` }] }, { timeout: TIMEOUT_MS }).then(
          () => "answered",
          () => "settled",
        ),
        new Promise<string>((resolve) => (hung = setTimeout(() => resolve("hung"), HUNG_MS))),
      ]);
      clearInterval(collect);
      clearTimeout(hung);
      outcomes.push(outcome);
    }
    expect(outcomes).toEqual(Array(10).fill("settled"));
  }, 120_000);
});
