import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, type IrtRouterOptions } from "../../src/langchain/index.js";
import { ToyScorer } from "./helpers.js";

/**
 * An `IrtRouter` over two fake chat models, mistral (answers "a") and gpt-4 (answers "b"), on the toy scorer, with
 * the other options given (feedback limits, sink, store, logger): the router the feedback tests send outcomes to.
 */
export function toyRouter(options: Omit<Partial<IrtRouterOptions>, "models" | "scorer"> = {}): IrtRouter {
  return new IrtRouter({
    models: {
      mistral: new FakeListChatModel({ responses: ["a"] }),
      "gpt-4": new FakeListChatModel({ responses: ["b"] }),
    },
    scorer: new ToyScorer(),
    ...options,
  });
}
