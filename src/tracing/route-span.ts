/**
 * One OpenTelemetry span per routed call, `irt_router.route`, through `@opentelemetry/api`: an optional peer, loaded
 * lazily (a literal dynamic import, on the first router built) and never required. Without it, or without an SDK
 * registered by the app (the API's tracer is then a no-op), nothing is recorded. The library never installs an SDK.
 *
 * Framework-neutral and I/O-free: it takes a {@link TracedRoute}, which each integration builds from its decision.
 */
import type * as OTel from "@opentelemetry/api";
import { z } from "zod";
import { isMissingPackage } from "../util/missing-package.js";

/** The span's name. */
export const ROUTE_SPAN = "irt_router.route";
/** The name of the span event of each candidate. */
export const CANDIDATE_EVENT = "irt_router.candidate";

/** One candidate as the span's event shows it. */
export interface TracedCandidate {
  readonly id: string;
  readonly p: number;
  readonly expectedCostUsd: number;
}

/** What a span shows of one routed call, once it is settled (answered, or failed on every model tried). */
export interface TracedRoute {
  /** The model that answered (else the first choice). */
  readonly model: string;
  readonly policy: string;
  /** Why that model: `policy`, `fallback`, `escalation`, `shadow` or `only-candidate`. */
  readonly reason: string;
  /** p and expected cost of `model`. */
  readonly p: number;
  readonly expectedCostUsd: number;
  /** The first choice, when another model answered after it failed. */
  readonly fallbackFrom?: string;
  /** Realized cost from the provider's reported usage, when known. */
  readonly realizedCostUsd?: number;
  readonly candidates: readonly TracedCandidate[];
  readonly ok: boolean;
  readonly error?: string;
  /** Only with the `includeRunId` opt-in. */
  readonly runId?: string;
  /** Only with the `includeText` opt-in: the routing text (user content). */
  readonly text?: string;
}

/** What may go into attributes beyond the decision: run ids and user text are left out unless opted in. */
export interface RouteTracingOptions {
  /** Add `irt_router.run_id` to a routed call's span, and `irt_router.task_id` to the run-level spans (default false). */
  readonly includeRunId?: boolean;
  /**
   * Add `irt_router.text`, the routing text (on run-level spans, the task text), cut to 1000 characters (default false:
   * it is user content).
   */
  readonly includeText?: boolean;
}

/** The zod schema of a `tracing` option: on/off, or {@link RouteTracingOptions}. */
export const tracingOptionSchema = z.union([
  z.boolean(),
  z.strictObject({ includeRunId: z.boolean().optional(), includeText: z.boolean().optional() }),
]);

/** Characters of routing or task text an opted-in span carries. */
export const MAX_TRACED_TEXT = 1000;

type Api = typeof OTel;
let loading: Promise<Api | undefined> | undefined;
let loaded: Api | undefined;

/**
 * `@opentelemetry/api`, or undefined when it is not installed (loaded once). A failure inside it is rethrown: the
 * callers warn about it and route untraced.
 */
export function openTelemetryApi(): Promise<Api | undefined> {
  loading ??= import("@opentelemetry/api").then(
    (m): Api => (loaded = m),
    (error: unknown) => {
      if (isMissingPackage(error, "@opentelemetry/api")) return undefined;
      throw error;
    },
  );
  return loading;
}

/** `@opentelemetry/api` if {@link openTelemetryApi} has loaded it already, for code that cannot wait (else undefined). */
export function loadedOpenTelemetryApi(): Api | undefined {
  return loaded;
}

/** A routed call's span-to-be: the context it nests under and when it started. */
export interface PendingRoute {
  readonly parent: OTel.Context;
  readonly startTime: number;
}

/**
 * Emits `irt_router.route` spans (kind INTERNAL) under the context active when each call began, with the decision's
 * attributes (`irt_router.model`, `.policy`, `.reason`, `.p`, `.expected_cost_usd`, `.fallback_from`,
 * `.realized_cost_usd`) and one `irt_router.candidate` event per candidate. Sets no `gen_ai.*` attribute: those
 * belong to the framework's and the provider's own spans.
 */
export class RouteTracer {
  constructor(private readonly options: RouteTracingOptions = {}) {
    void openTelemetryApi().catch(() => undefined); // start loading; a failing install is warned about at first use
  }

  /** Call when a routed call begins: undefined when the API is absent; rejects when its install is broken. */
  async begin(): Promise<PendingRoute | undefined> {
    const api = await openTelemetryApi();
    return api && { parent: api.context.active(), startTime: Date.now() };
  }

  /** Records the settled call as one ended span. */
  async end(pending: PendingRoute, route: TracedRoute): Promise<void> {
    const api = await openTelemetryApi();
    if (!api) return;
    const tracer = api.trace.getTracer("irt-router");
    const span = tracer.startSpan(
      ROUTE_SPAN,
      { kind: api.SpanKind.INTERNAL, startTime: pending.startTime, attributes: this.attributes(route) },
      pending.parent,
    );
    for (const c of route.candidates) {
      span.addEvent(CANDIDATE_EVENT, {
        "irt_router.model": c.id,
        "irt_router.p": c.p,
        "irt_router.expected_cost_usd": c.expectedCostUsd,
      });
    }
    if (!route.ok) span.setStatus({ code: api.SpanStatusCode.ERROR, message: route.error ?? "every model failed" });
    span.end();
  }

  private attributes(route: TracedRoute): OTel.Attributes {
    const a: OTel.Attributes = {
      "irt_router.model": route.model,
      "irt_router.policy": route.policy,
      "irt_router.reason": route.reason,
      "irt_router.p": route.p,
      "irt_router.expected_cost_usd": route.expectedCostUsd,
    };
    if (route.fallbackFrom !== undefined) a["irt_router.fallback_from"] = route.fallbackFrom;
    if (route.realizedCostUsd !== undefined) a["irt_router.realized_cost_usd"] = route.realizedCostUsd;
    if (this.options.includeRunId && route.runId !== undefined) a["irt_router.run_id"] = route.runId;
    if (this.options.includeText && route.text !== undefined)
      a["irt_router.text"] = route.text.slice(0, MAX_TRACED_TEXT);
    return a;
  }
}
