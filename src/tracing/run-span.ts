/**
 * OpenTelemetry spans of the run-level router, through `@opentelemetry/api` only (an optional peer, loaded lazily; see
 * route-span.ts): `irt_router.run` for each run-level decision (`RunRouter.route`, `routeRun`), and for an escalation
 * (`escalate`, `runTask`) one `irt_router.escalation` span with an `irt_router.run_attempt` child per attempt, inside
 * which the user's run function runs, so the agent's own spans nest under the attempt that ran them. Without the API,
 * or without an SDK registered by the app, nothing is recorded and the bodies run as they would.
 *
 * Attributes name models, policies, probabilities and costs; the task's text and id are user content and go in only
 * with the `includeText` and `includeRunId` opt-ins (as on the per-call span).
 */
import type * as OTel from "@opentelemetry/api";
import {
  CANDIDATE_EVENT,
  MAX_TRACED_TEXT,
  loadedOpenTelemetryApi,
  openTelemetryApi,
  type RouteTracingOptions,
} from "./route-span.js";

/** A run-level decision's span. */
export const RUN_SPAN = "irt_router.run";
/** An escalation's span (all its attempts). */
export const ESCALATION_SPAN = "irt_router.escalation";
/** One attempt's span (the user's run and check of it). */
export const ATTEMPT_SPAN = "irt_router.run_attempt";

/** What a run-level decision's span shows. */
export interface TracedRunDecision {
  readonly chosen: string;
  readonly policy: string;
  readonly reason: string;
  readonly candidates: readonly { readonly modelId: string; readonly p: number; readonly expectedCost: number }[];
}

/** The task as a span may show it (id and text only with the opt-ins). */
export interface TracedTask {
  readonly id: string;
  readonly text: string;
}

/** Sets a span's closing attributes and status; called once by the body when it knows its outcome. */
export type SpanOutcome = (attributes: Readonly<Record<string, string | number | boolean>>, ok?: boolean) => void;

type Api = typeof OTel;

/**
 * Spans of one run-level router (see the module comment). Tracing never fails a decision or a run: a tracer or an API
 * install that throws is warned about once (through `logger`) and the body runs untraced.
 */
export class RunTracer {
  private warned = false;

  constructor(
    private readonly options: RouteTracingOptions = {},
    private readonly logger: { warn(message: string): void } = console,
  ) {
    // Start loading; a decision made before the API is here is recorded once it is, at the time it was made.
    openTelemetryApi().catch(() => undefined);
  }

  /** Records a run-level decision as one ended span under the active context (sync; never throws). */
  decision(task: TracedTask, d: TracedRunDecision): void {
    const at = Date.now();
    const record = (api: Api | undefined, parent?: OTel.Context) => {
      if (!api) return;
      const span = api.trace
        .getTracer("irt-router")
        .startSpan(RUN_SPAN, { kind: api.SpanKind.INTERNAL, startTime: at }, parent);
      if (!span.isRecording()) return span.end(at);
      const chosen = d.candidates.find((c) => c.modelId === d.chosen);
      span.setAttributes({
        "irt_router.model": d.chosen,
        "irt_router.policy": d.policy,
        "irt_router.reason": d.reason,
        ...(chosen && { "irt_router.p": chosen.p, "irt_router.expected_cost_usd": chosen.expectedCost }),
        ...this.taskAttributes(task),
      });
      for (const c of d.candidates) {
        span.addEvent(CANDIDATE_EVENT, {
          "irt_router.model": c.modelId,
          "irt_router.p": c.p,
          "irt_router.expected_cost_usd": c.expectedCost,
        });
      }
      span.end(at);
    };
    try {
      const api = loadedOpenTelemetryApi();
      if (api) record(api, api.context.active());
      // Loaded later: the context active then is the one the decision was made in (an async context manager carries
      // it into the callback), and a failure inside is dropped like any other.
      else
        openTelemetryApi()
          .then((later) => record(later))
          .catch(() => undefined);
    } catch {
      // Tracing never fails a decision.
    }
  }

  /**
   * Runs `body` inside a new span `name` (a child of the active context, and the active context while `body` runs),
   * and ends the span when `body` settles: with `body`'s outcome attributes, or an error status when it throws.
   */
  async span<T>(
    name: typeof ESCALATION_SPAN | typeof ATTEMPT_SPAN,
    attributes: Readonly<Record<string, string | number | boolean>>,
    task: TracedTask | undefined,
    body: (outcome: SpanOutcome) => Promise<T>,
  ): Promise<T> {
    const untraced = (): Promise<T> => body(() => undefined);
    let api: Api | undefined;
    let opened: OTel.Span | undefined;
    let context: OTel.Context;
    try {
      api = loadedOpenTelemetryApi() ?? (await openTelemetryApi());
      if (!api) return untraced();
      const all = { ...attributes, ...this.taskAttributes(task) };
      opened = api.trace.getTracer("irt-router").startSpan(name, { kind: api.SpanKind.INTERNAL, attributes: all });
      context = api.trace.setSpan(api.context.active(), opened);
    } catch (error) {
      this.failed(name, error);
      if (opened) this.guard(name, () => opened!.end());
      return untraced();
    }
    const span = opened;
    const { SpanStatusCode } = api;
    const outcome: SpanOutcome = (attrs, ok = true) =>
      this.guard(name, () => {
        span.setAttributes(attrs);
        if (!ok) span.setStatus({ code: SpanStatusCode.ERROR });
      });
    let ran: Promise<T> | undefined;
    let result: Promise<T>;
    try {
      result = api.context.with(context, () => {
        try {
          ran = body(outcome);
        } catch (error) {
          ran = Promise.reject(error as Error);
        }
        return ran;
      });
    } catch (error) {
      // the context manager threw: before the body ran (run it outside the span), or after (go on with its run)
      this.failed(name, error);
      result = ran ?? body(outcome);
    }
    try {
      return await result;
    } catch (error) {
      this.guard(name, () => {
        span.recordException(error instanceof Error ? error : String(error));
        const message = error instanceof Error ? error.message : String(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      });
      throw error;
    } finally {
      this.guard(name, () => span.end());
    }
  }

  /** Runs one tracer call; a throw is warned about once, never passed on. */
  private guard(name: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.failed(name, error);
    }
  }

  private failed(name: string, error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    const why = error instanceof Error ? error.message : String(error);
    this.logger.warn(`irt-router: run-level tracing failed at a ${name} span (${why}); runs go on, untraced there.`);
  }

  private taskAttributes(task: TracedTask | undefined): Record<string, string> {
    const a: Record<string, string> = {};
    if (!task) return a;
    if (this.options.includeRunId) a["irt_router.task_id"] = task.id;
    if (this.options.includeText) a["irt_router.text"] = task.text.slice(0, MAX_TRACED_TEXT);
    return a;
  }
}
