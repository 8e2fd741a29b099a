/**
 * A routed model whose calls the processor watches. When the agent has fallback models of its own, Mastra moves a
 * step whose model call threw to the agent's next entry and shows the error to its error processors only (its
 * fallback loop, `executeStreamWithFallbackModels`, catches the throw; input and output processors run as one
 * processor workflow, which `runProcessAPIError` skips). A processor that is not an error processor sees the error
 * only on the model it served: a model object Mastra calls as it is (an AI SDK language model), seen here through a
 * proxy that notes how its last call ended (its promise, and the stream a `doStream` call returns). A model id string
 * or a config object is resolved by Mastra into a model of its own, which the processor never holds: its calls
 * cannot be watched.
 */

/** How the watched model's last call ended: its rejection or its stream's error, or none (it answered, or no call). */
export interface CallWatch {
  rejection?: { readonly error: unknown };
}

/** An AI SDK language model, as far as watching reads it: the two calls Mastra makes. */
interface CallableModel {
  doGenerate(...args: unknown[]): PromiseLike<unknown>;
  doStream(...args: unknown[]): PromiseLike<unknown>;
}

const CALLS = new Set<PropertyKey>(["doGenerate", "doStream"]);

/** Whether `key` is an own property of `target` that a proxy must return as it is (read-only, non-configurable). */
function pinned(target: object, key: PropertyKey): boolean {
  const d = Object.getOwnPropertyDescriptor(target, key);
  return d !== undefined && d.configurable === false && d.writable === false;
}

/**
 * Whether Mastra calls `model` as it is (an object with `doGenerate` and `doStream`) and a proxy can watch its calls:
 * not when they are frozen own properties of it (a frozen object literal), which a proxy must return unchanged.
 */
export function isWatchable(model: unknown): model is CallableModel {
  if (typeof model !== "object" || model === null) return false;
  const m = model as Partial<Record<"doGenerate" | "doStream", unknown>>;
  if (typeof m.doGenerate !== "function" || typeof m.doStream !== "function") return false;
  return !pinned(model, "doGenerate") && !pinned(model, "doStream");
}

/**
 * `stream` read through unchanged, an error it ends with noted in `watch` (a stream that throws part-way, as a
 * dropped connection does; an `error` part is an answer's part, not a throw, and Mastra keeps it in the step).
 */
function watchedStream(stream: ReadableStream<unknown>, watch: CallWatch): ReadableStream<unknown> {
  const reader = stream.getReader();
  let cancelled = false;
  return new ReadableStream({
    async pull(controller) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        if (cancelled) return;
        watch.rejection = { error };
        controller.error(error);
        return;
      }
      if (cancelled) return; // the reader ended because the consumer cancelled: the stream is closed already
      if (step.done) controller.close();
      else controller.enqueue(step.value);
    },
    // a consumer that cancels with an error (Mastra's timeout guards) ended the call with it, as a throw would
    cancel: (reason) => {
      cancelled = true;
      if (reason instanceof Error) watch.rejection = { error: reason };
      return reader.cancel(reason);
    },
  });
}

/**
 * A call's result with its `stream` (a `doStream` call's) replaced by the watched one, in place so that anything
 * else on the result stays as it is; a result whose `stream` cannot be replaced is returned unwatched.
 */
function watchedResult(result: unknown, watch: CallWatch): unknown {
  const r = result as { stream?: unknown } | null;
  if (typeof r !== "object" || r === null || !(r.stream instanceof ReadableStream)) return result;
  if (Object.getOwnPropertyDescriptor(r, "stream")?.writable !== true) return result;
  r.stream = watchedStream(r.stream, watch);
  return result;
}

/**
 * `model` with each `doGenerate`/`doStream` call's end noted in `watch` (a rejection, or the returned stream's error,
 * kept; a resolution clearing it; the call's result and error pass unchanged). Every other property reads from the
 * model itself (methods bound to it, so a model with private fields still works); `instanceof` and `in` see the model.
 */
export function watched<T extends CallableModel>(model: T, watch: CallWatch): T {
  return new Proxy(model, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function" || key === "constructor" || pinned(target, key)) return value;
      if (!CALLS.has(key)) return value.bind(target);
      return async (...args: unknown[]) => {
        try {
          const result: unknown = await (Reflect.apply(value, target, args) as PromiseLike<unknown>);
          watch.rejection = undefined;
          return watchedResult(result, watch);
        } catch (error) {
          watch.rejection = { error };
          throw error;
        }
      };
    },
  });
}

/**
 * The failure recorded for a routed call that Mastra moved to the agent's fallback model when the call could not be
 * watched (a model id string or a config object) and the processor is not an error processor: the step failed on
 * the routed model, but its error is not known.
 */
export function unseenFailure(): Error {
  return new Error(
    "the call failed and Mastra moved the step to the agent's fallback model; its error was not seen " +
      "(add the processor to errorProcessors, or give the model as an AI SDK model object)",
  );
}
