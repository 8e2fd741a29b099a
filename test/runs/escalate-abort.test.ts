/**
 * Cancelling an escalation with `signal`: refused when it is no AbortSignal, rejected with the signal's reason before,
 * during (a run or check that never settles) and between attempts, with what was fed back and billed until then kept,
 * and no listener left on a signal that serves many escalations.
 */
import { describe, expect, it, vi } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { RunRouter, SpendPacer, type AttemptContext } from "../../src/runs/index.js";
import { trained } from "./trained-router.js";

/** A promise that never settles: an agent run or check that hangs. */
const never = <T>() => new Promise<T>(() => undefined);

/** The listeners `signal` holds now, by wrapping its addEventListener and removeEventListener. */
function listenersOf(signal: AbortSignal): Set<unknown> {
  const active = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
    active.add(args[1]);
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<AbortSignal["removeEventListener"]>) => {
    active.delete(args[1]);
    remove(...args);
  }) as typeof signal.removeEventListener;
  return active;
}

describe("RunRouter.escalate with a signal", () => {
  it("a signal that is no AbortSignal is a ValidationError naming options.signal; nothing runs or is billed", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 1 });
    const run = vi.fn(async (m: string) => m);
    for (const signal of ["soon", { aborted: false, addEventListener() {} }, new AbortController()]) {
      const error = await router.escalate("t", run, () => true, { pacer, signal: signal as never }).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ path: "options.signal" });
      expect((error as Error).message).toMatch(/options\.signal: must be an AbortSignal/);
    }
    expect(run).not.toHaveBeenCalled();
    expect(pacer.taskCount).toBe(0);
  });

  it("already aborted: rejects with the signal's reason itself; nothing runs, is billed or fed back", async () => {
    const router = trained();
    const before = router.feedbackCount;
    const pacer = new SpendPacer({ target: 1 });
    const run = vi.fn(async (m: string) => m);
    const reason = new Error("the user left");
    const controller = new AbortController();
    controller.abort(reason);
    await expect(router.escalate("t", run, () => true, { pacer, signal: controller.signal })).rejects.toBe(reason);
    // The default reason, as fetch rejects with it: a DOMException named AbortError (TimeoutError for a timeout).
    const plain = AbortSignal.abort();
    await expect(router.escalate("t", run, () => true, { signal: plain })).rejects.toBe(plain.reason);
    expect((plain.reason as DOMException).name).toBe("AbortError");
    expect(run).not.toHaveBeenCalled();
    expect(router.feedbackCount).toBe(before);
    expect(pacer.taskCount).toBe(0);
  });

  it("aborted while a run hangs: rejects at once; the earlier outcome stays fed back, the pacer bills both runs", async () => {
    const router = trained();
    const feedback = vi.spyOn(router, "feedback");
    const pacer = new SpendPacer({ target: 1 });
    const controller = new AbortController();
    const reason = new Error("cancelled by the user");
    const run = vi.fn((modelId: string, attempt: number, _context: AttemptContext) => {
      if (attempt === 1) return Promise.resolve(modelId);
      queueMicrotask(() => controller.abort(reason)); // the second run never settles and is cancelled meanwhile
      return never<string>();
    });
    const pending = router.escalate("t", run, () => false, { pacer, maxAttempts: 3, signal: controller.signal });
    await expect(pending).rejects.toBe(reason);
    const [first, second] = run.mock.calls.map((c) => c[0]);
    expect(run).toHaveBeenCalledTimes(2);
    expect(run.mock.calls[1]![2]).toEqual({ signal: controller.signal });
    expect(feedback.mock.calls.map((c) => [c[1], c[2]])).toEqual([[first, 0]]); // not the aborted run's
    expect(pacer.taskCount).toBe(1);
    expect(pacer.meanSpend).toBeCloseTo(router.runCost(first!) + router.runCost(second!), 12);
  });

  it("an agent run that stops on its signal's abort: the escalation still rejects with the signal's reason", async () => {
    const router = trained();
    const controller = new AbortController();
    const reason = new Error("time is up");
    let stopped = false;
    const pending = router.escalate(
      "t",
      (_modelId, _attempt, { signal }) =>
        new Promise<string>((_, reject) => {
          signal!.addEventListener("abort", () => {
            stopped = true;
            reject(new Error("agent stopped"));
          });
          queueMicrotask(() => controller.abort(reason));
        }),
      () => true,
      { signal: controller.signal },
    );
    await expect(pending).rejects.toBe(reason);
    expect(stopped).toBe(true);
  });

  it("aborted while a check hangs: rejects at once; its outcome is not fed back, its run is billed", async () => {
    const router = trained();
    const before = router.feedbackCount;
    const pacer = new SpendPacer({ target: 1 });
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const check = vi.fn((_result: string, _modelId: string, _context: AttemptContext) => {
      queueMicrotask(() => controller.abort(reason));
      return never<boolean>();
    });
    const run = vi.fn(async (m: string) => m);
    await expect(router.escalate("t", run, check, { pacer, signal: controller.signal })).rejects.toBe(reason);
    expect(check.mock.calls[0]![2]).toEqual({ signal: controller.signal });
    expect(router.feedbackCount).toBe(before);
    expect(run).toHaveBeenCalledTimes(1);
    expect(pacer.meanSpend).toBeCloseTo(router.runCost(run.mock.calls[0]![0]), 12);
  });

  it("aborted between attempts: no further attempt starts, and the finished one stays fed back and billed", async () => {
    const router = trained();
    const controller = new AbortController();
    const reason = new Error("enough");
    const feed = router.feedback.bind(router);
    // Aborted right after the first attempt's outcome is fed back, before the next attempt would start.
    const feedback = vi.spyOn(router, "feedback").mockImplementation((...args) => {
      feed(...args);
      controller.abort(reason);
    });
    const pacer = new SpendPacer({ target: 1 });
    const run = vi.fn(async (m: string) => m);
    const pending = router.escalate("t", run, () => false, { pacer, maxAttempts: 3, signal: controller.signal });
    await expect(pending).rejects.toBe(reason);
    expect(run).toHaveBeenCalledTimes(1);
    expect(feedback).toHaveBeenCalledTimes(1);
    expect(pacer.meanSpend).toBeCloseTo(router.runCost(run.mock.calls[0]![0]), 12);
  });

  it("run and check get { signal }, undefined without one, and their results are used as before", async () => {
    const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
    const contexts: AttemptContext[] = [];
    const signal = new AbortController().signal;
    const result = await router.escalate(
      "t",
      async (modelId, _attempt, context) => (contexts.push(context), modelId),
      (_result, _modelId, context) => (contexts.push(context), true),
      { signal },
    );
    expect(result.passed).toBe(true);
    expect(contexts).toEqual([{ signal }, { signal }]);
    contexts.length = 0;
    await router.escalate(
      "t",
      async (modelId, _attempt, context) => (contexts.push(context), modelId),
      (_result, _modelId, context) => (contexts.push(context), true),
    );
    expect(contexts).toEqual([{ signal: undefined }, { signal: undefined }]);
  });

  it("one signal reused for many escalations keeps no listener after each one ends, however it ended", async () => {
    const router = trained();
    const controller = new AbortController();
    const active = listenersOf(controller.signal);
    let during = 0;
    const run = async (modelId: string) => {
      during = Math.max(during, active.size);
      return modelId;
    };
    const signal = controller.signal;
    await router.escalate("a", run, () => true, { signal }); // passed
    expect(active.size).toBe(0);
    await router.escalate("b", run, () => false, { signal, maxAttempts: 2 }); // max-attempts
    expect(active.size).toBe(0);
    const throws = async () => Promise.reject(new Error("sandbox died"));
    await expect(router.escalate("c", throws, () => true, { signal })).rejects.toThrow("sandbox died");
    expect(active.size).toBe(0);
    await expect(router.escalate("d", run, () => 2, { signal })).rejects.toThrow(/check must return/);
    expect(active.size).toBe(0);
    const reason = new Error("shut down");
    const hangs = () => (queueMicrotask(() => controller.abort(reason)), never<string>());
    await expect(router.escalate("e", hangs, () => true, { signal })).rejects.toBe(reason); // aborted
    expect(active.size).toBe(0);
    await expect(router.escalate("f", run, () => true, { signal })).rejects.toBe(reason); // already aborted
    expect(active.size).toBe(0);
    expect(during).toBe(1); // the escalation's one listener, while it ran: the wrapping sees it
  });
});
