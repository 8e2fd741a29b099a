/**
 * The run-level surface of the LangChain router (IrtRouter extends it): one model per whole agent run and escalation
 * after a failed run, delegated to the framework-neutral run-level router of src/runs over the same models.
 */
import { BaseChatModel, type BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { ValidationError } from "../../errors.js";
import type { RunDecision, RunRouter } from "../../runs/run-router.js";
import type { EscalateOptions, RouteRunOptions, RunTask } from "../../runs/options.js";
import type { EscalationResult, RunCheck, RunFunction } from "../../runs/escalate.js";
import type { ChatEngine } from "../bridge/chat-engine.js";

/** A chat model with run-level routing over its engine's models (the base of {@link IrtRouter}). */
export abstract class RunRoutedChatModel extends BaseChatModel<BaseChatModelCallOptions> {
  protected abstract readonly engine: ChatEngine;

  /**
   * The run-level router over these models (their prices, option `runs`): one model per agent run, learned from run
   * outcomes (`runs.feedback(task, modelId, passed)`), shared with derived routers. docs/agents.md, "Run-level routing".
   *
   * @example
   * ```ts
   * router.runs.feedback({ id: "fix-git", text: "Recover the lost commit." }, router.modelIds[0]!, true);
   * ```
   */
  get runs(): RunRouter {
    return this.engine.runs;
  }

  /**
   * One model for a whole agent run of `task` (pinned for the run, which keeps the provider's prompt cache warm), from
   * the task text, the prices and the run outcomes fed back. The decision carries its reason: p per model, run cost,
   * policy.
   *
   * @example
   * ```ts
   * import { createAgent } from "langchain";
   *
   * const d = router.routeRun({ id: "fix-git", text: "Recover the lost commit." }, { costWeight: 0.1 });
   * const agent = createAgent({ model: router.modelFor(d.chosen), tools });
   * console.log(d.chosen, d.reason);
   * await agent.invoke({ messages: [{ role: "user", content: "Recover the lost commit." }] });
   * ```
   */
  routeRun(task: RunTask | string, options?: RouteRunOptions): RunDecision {
    return this.engine.runs.route(task, options);
  }

  /**
   * Run `task` with the model the router picks (`run(modelId, attempt)` runs the agent from scratch, e.g. a
   * `createAgent` run); when `check` says the run failed, run it again with the model picked next knowing what failed,
   * up to `maxAttempts` runs and `costCap` USD. Every attempt's outcome is fed back. Option `signal` (e.g.
   * `AbortSignal.timeout(ms)`) cancels it: it rejects at once with the signal's reason, and `run` gets the signal as
   * `{ signal }`, its third argument, to pass to the agent. See `RunRouter.escalate`.
   *
   * @example
   * ```ts
   * import { createAgent } from "langchain";
   *
   * const text = "Make the failing test pass, then print PASSED.";
   * const result = await router.runTask(
   *   { id: "fix-test", text },
   *   (modelId, _attempt, { signal }) =>
   *     createAgent({ model: router.modelFor(modelId), tools }).invoke(
   *       { messages: [{ role: "user", content: text }] },
   *       { signal }, // the agent stops when the escalation is cancelled
   *     ),
   *   (state) => String(state.messages.at(-1)?.content ?? "").includes("PASSED"), // or run the tests
   *   { maxAttempts: 3, costCap: 4, signal: AbortSignal.timeout(20 * 60_000) },
   * );
   * console.log(result.passed, result.attempts.map((a) => a.modelId));
   * ```
   */
  runTask<R>(
    task: RunTask | string,
    run: RunFunction<R>,
    check: RunCheck<R>,
    options?: EscalateOptions,
  ): Promise<EscalationResult<R>> {
    return this.engine.runs.escalate(task, run, check, options);
  }

  /**
   * The registered chat model of `modelId` (e.g. a run-level decision's `chosen`), to run an agent with.
   *
   * @example
   * ```ts
   * const model = router.modelFor(router.routeRun("Fix the build.").chosen);
   * ```
   */
  modelFor(modelId: string): BaseChatModel {
    const slot = this.engine.slots.find((s) => s.id === modelId);
    if (!slot) throw new ValidationError(`No model "${modelId}" is registered with this router.`, { path: "modelId" });
    return slot.model;
  }
}
