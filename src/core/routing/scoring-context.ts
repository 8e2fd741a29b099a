/**
 * What the router scores with: the scorer (the default pretrained one unless given), the query encoder, and each
 * registered model's ability, catalog id and price, loaded once on first use; and the item parameters of a routing
 * text, cached.
 */
import { assertSameEncoder } from "../../encoders/identity.js";
import { LruCache } from "../../encoders/lru.js";
import type { QueryEncoder } from "../../encoders/types.js";
import type { ModelPrice } from "../../data/types.js";
import { EncoderInputError, IrtRouterError, UnknownModelWarning, ValidationError } from "../../errors.js";
import { listPrice } from "../../policy/prices.js";
import { withCachedInputPrice } from "../../policy/cached-input.js";
import type { ItemParams, Scorer } from "../../scorer/types.js";
import type { ModelCatalog, ModelPrior } from "../../scorer/model-catalog.js";
import type { ModelStart } from "../../learning/learner-types.js";
import { loadDefaultScorer } from "../contracts/default-scorer.js";
import { missingScorerParts, type ParsedRoutingOptions } from "../contracts/options.js";
import type { ModelSlot } from "./model-slots.js";
import type { OnceWarnings } from "../contracts/warnings.js";

export const DEFAULT_CACHE_SIZE = 1024;

export interface ScoringContext {
  scorer: Scorer;
  encoder?: QueryEncoder;
  /** Population-average ability: the mean theta of the catalog, for models the scorer does not know. */
  meanTheta: Float32Array;
  /** Registered key -> theta (the catalog's, or meanTheta for an unknown key). */
  theta: Map<string, Float32Array>;
  /** Registered key -> catalog id (the key itself when unknown). */
  catalogIds: Record<string, string>;
  /**
   * Registered key -> where its ability came from, for a model that is not a row of the scorer: a current-models
   * catalog prior (src/scorer/model-catalog.ts) or, for a model the catalog does not know, a rule's prior.
   */
  priors: Map<string, ModelPrior>;
  /**
   * Learner id (catalog id) -> where an online learner starts that model: its catalog prior or, for a name the catalog
   * does not know, its family and price-tier prior, with the prior's uncertainty (see {@link learnerStarts}). Models
   * the scorer has rows for are absent (the learner starts them from their rows), and so are models with only the
   * population average (the learner's new-model prior).
   */
  starts: ReadonlyMap<string, ModelStart>;
  /** Registered key -> price (the user's, else the catalog's), `cachedInputPer1M` filled in by its family default. */
  prices: Map<string, ModelPrice | undefined>;
}

/** A routing text's item parameters, and what computing them took (zero on a cache hit). */
export interface ScoredText {
  readonly item: ItemParams;
  readonly cacheHit: boolean;
  readonly encodeMs: number;
  readonly scoreMs: number;
}

/**
 * Loads the scoring context on first use (a failed load is retried by the next call) and scores routing texts
 * through an LRU cache of item parameters.
 */
export class ScoringContextLoader {
  private context?: Promise<ScoringContext>;
  private current?: ScoringContext;
  private readonly cache: LruCache<string, ItemParams>;

  constructor(
    private readonly options: Pick<ParsedRoutingOptions, "scorer" | "encoder" | "cacheSize" | "policy">,
    private readonly slots: readonly ModelSlot[],
    private readonly warnings: OnceWarnings,
    /**
     * Awaited once the scorer has loaded, before the context is used (the `store` option restores its learner then),
     * with the registered models' learner starts.
     */
    private readonly onScorer?: (scorer: Scorer, starts: ReadonlyMap<string, ModelStart>) => Promise<void>,
  ) {
    this.cache = new LruCache(options.cacheSize ?? DEFAULT_CACHE_SIZE);
  }

  /** The context, loaded on first use; later calls reuse it. */
  load(): Promise<ScoringContext> {
    if (!this.context) {
      this.context = this.loadNow();
      this.context.catch(() => (this.context = undefined));
    }
    return this.context;
  }

  /** The context if it has loaded (prices are resolved then; a plan always runs after that). */
  get loaded(): ScoringContext | undefined {
    return this.current;
  }

  /** The item parameters of a routing text (cached), with the scorer's temperature folded in (see {@link tempered}). */
  async score(ctx: ScoringContext, text: string): Promise<ScoredText> {
    const cached = this.cache.get(text);
    if (cached) return { item: cached, cacheHit: true, encodeMs: 0, scoreMs: 0 };
    let item: ItemParams;
    let encodeMs: number;
    let scoreMs = 0;
    const t0 = performance.now();
    if (ctx.encoder) {
      const vector = checkedVector((await ctx.encoder.embed([text]))?.[0], ctx);
      const t1 = performance.now();
      encodeMs = t1 - t0;
      item = await ctx.scorer.itemParams(vector);
      scoreMs = performance.now() - t1;
    } else {
      // The scorer embeds the text itself; that time is reported as encodeMs.
      item = await ctx.scorer.itemParams(text);
      encodeMs = performance.now() - t0;
    }
    item = tempered(item, ctx.scorer);
    this.cache.set(text, item);
    return { item, cacheHit: false, encodeMs, scoreMs };
  }

  private async loadNow(): Promise<ScoringContext> {
    const { scorer, encoder } = await this.scorerAndEncoder();
    const d = scorer.abilityDim;
    const meanTheta = new Float32Array(d);
    for (const m of scorer.models) for (let k = 0; k < d; k++) meanTheta[k]! += m.ability[k]! / scorer.models.length;
    const theta = new Map<string, Float32Array>();
    const catalogIds: Record<string, string> = {};
    const prices = new Map<string, ModelPrice | undefined>();
    const priors = new Map<string, ModelPrior>();
    // the current-models catalog (its module, schema and data) is loaded only for a model the scorer has no row for
    let catalog: ModelCatalog | undefined;
    for (const slot of this.slots) {
      const entry = catalogEntry(scorer, slot.id);
      const known = abilityOf(scorer, slot.id);
      const current = known.theta
        ? undefined
        : (catalog ??= await (await import("../../scorer/model-catalog.js")).currentModels());
      const model = current?.resolve(slot.id);
      const id = known.theta ? (entry?.id ?? slot.id) : (model?.id ?? slot.id);
      const price = withCachedInputPrice(id, slot.price ?? entry?.price ?? model?.price ?? listPrice(id));
      let prior = model ? current!.priorOn(model, scorer) : undefined;
      if (current && (!prior || prior.method === "family-tier")) {
        prior ??= current.unknownPriorOn(slot.id, price, scorer) ?? populationPrior(slot.id, meanTheta, scorer);
        this.warnUnknown(slot.id, model ? [] : known.suggestions, prior, model?.id);
      }
      if (prior) priors.set(slot.id, prior);
      theta.set(slot.id, known.theta ?? prior?.ability ?? meanTheta);
      catalogIds[slot.id] = id;
      prices.set(slot.id, price);
      if (!price && costRanked(this.options.policy)) throw unpricedModel(slot.id, this.options.policy!.kind);
      if (!price) {
        this.warnings.warn(
          `price:${slot.id}`,
          `irt-router: model "${slot.id}" has no price; its expected cost is taken as 0. ` +
            `Give it one: models: { "${slot.id}": { model, price: { inputPer1M, outputPer1M } } }.`,
        );
      }
    }
    const starts = learnerStarts(priors, catalogIds);
    await this.onScorer?.(scorer, starts);
    this.current = { scorer, encoder, meanTheta, theta, catalogIds, prices, priors, starts };
    return this.current;
  }

  private async scorerAndEncoder(): Promise<{ scorer: Scorer; encoder?: QueryEncoder }> {
    let scorer: Scorer;
    let encoder: QueryEncoder | undefined;
    const { scorer: scorerOption, encoder: encoderOption } = this.options;
    if (scorerOption === undefined) {
      ({ scorer, encoder } = await loadDefaultScorer());
    } else {
      scorer = typeof scorerOption === "function" ? await scorerOption() : scorerOption;
      assertScorerShape(scorer);
    }
    if (encoderOption !== undefined) {
      encoder = typeof encoderOption === "function" ? await encoderOption() : encoderOption;
      assertSameEncoder(scorer.encoder, encoder, "scorer");
    }
    return { scorer, encoder };
  }

  /**
   * The typed warning for a model with no measured ability on this scorer: a name neither the scorer nor the
   * current-models catalog knows, a catalog model without data (family and price-tier rule), or any of those on a
   * scorer the catalog has no scale for (population average).
   */
  private warnUnknown(id: string, suggestions: readonly string[], prior: ModelPrior, catalogId?: string): void {
    const report = {
      method: prior.method,
      ...(prior.mmluEquivalent !== undefined ? { mmluEquivalent: prior.mmluEquivalent } : {}),
      sd: prior.sd,
      source: prior.source,
    };
    const warning = new UnknownModelWarning(id, report, calibrateCommand(id), suggestions, catalogId);
    this.warnings.warn(`unknown:${id}`, warning.message, warning);
  }
}

/**
 * Where an online learner starts each registered model that is not a row of the scorer, by learner id: the model's
 * prior placed by strength (its catalog prior, or the family and price-tier rule for a name the catalog does not
 * know), with the prior's sd along the scale's direction. The one place a router's learner (the `learner` option, the
 * one `store` restores, or the in-memory one) gets a new model's prior from.
 */
export function learnerStarts(
  priors: ReadonlyMap<string, ModelPrior>,
  catalogIds: Readonly<Record<string, string>>,
): Map<string, ModelStart> {
  const starts = new Map<string, ModelStart>();
  for (const [key, prior] of priors) {
    const start = priorStart(prior);
    if (start) starts.set(catalogIds[key] ?? key, start);
  }
  return starts;
}

/**
 * Where a model starts from a prior placed by strength (its ability, and its sd along the scale's direction); undefined
 * for a prior that is not (the population average).
 */
export function priorStart(prior: ModelPrior): ModelStart | undefined {
  if (!prior.direction || !Number.isFinite(prior.sd)) return undefined;
  return { ability: prior.ability, placement: { sd: prior.sd, direction: prior.direction } };
}

/** The prior of a model on a scorer the catalog has no scale for: the average ability of the scorer's models. */
function populationPrior(id: string, meanTheta: Float32Array, scorer: Scorer): ModelPrior {
  return {
    id,
    method: "population",
    ability: meanTheta,
    sd: NaN,
    source: `the average ability of the scorer's ${scorer.models.length} models (the catalog's priors are fitted for the shipped scorers only)`,
  };
}

/** The CLI command that calibrates a model on a few of the user's own tasks (see docs/online.md). */
function calibrateCommand(id: string): string {
  return (
    `npx irt-router calibrate --model "${id}" --budget 20 --probes <folder of your own tasks> ` +
    `--endpoint <OpenAI-compatible URL> --store <dir> (then give the router that store)`
  );
}

/** The catalog entry of an id or alias (exact match first, then case-insensitive). */
function catalogEntry(scorer: Scorer, id: string) {
  const lower = id.toLowerCase();
  return (
    scorer.models.find((m) => m.id === id || m.aliases.includes(id)) ??
    scorer.models.find((m) => m.id.toLowerCase() === lower || m.aliases.some((a) => a.toLowerCase() === lower))
  );
}

/** theta of a model the scorer knows (it resolves ids and aliases itself), or undefined when unknown. */
function abilityOf(scorer: Scorer, id: string): { theta?: Float32Array; suggestions: string[] } {
  try {
    return { theta: scorer.ability(id), suggestions: [] };
  } catch (error) {
    if (error instanceof IrtRouterError && error.code === "UNKNOWN_MODEL") {
      const suggestions = (error.details?.suggestions as string[] | undefined) ?? [];
      return { suggestions };
    }
    throw error;
  }
}

/**
 * Item parameters with the scorer's logit temperature folded in (alpha / T, beta / T), so that
 * p = sigmoid(alpha . theta - beta) is exactly the scorer's p, and feedback events carry parameters
 * the learner can use as they are. Scorers without a `temperature` are used as they are.
 */
function tempered(item: ItemParams, scorer: Scorer): ItemParams {
  const t = (scorer as { temperature?: unknown }).temperature;
  if (typeof t !== "number" || !(t > 0) || t === 1) return item;
  return { alpha: item.alpha.map((a) => a / t), beta: item.beta / t };
}

/** A scorer factory's result, checked before use: a typed error naming the option instead of a TypeError later. */
function assertScorerShape(scorer: unknown): asserts scorer is Scorer {
  const missing = missingScorerParts(scorer);
  if (missing.length > 0) {
    throw new ValidationError(
      `options.scorer did not give a Scorer (missing ${missing.join(", ")}); pass a scorer such as loadPretrained(), or a function that resolves to one.`,
      { path: "options.scorer" },
    );
  }
}

/** Whether the policy ranks by cost, so that a model without a price would win as free. */
function costRanked(policy: ParsedRoutingOptions["policy"]): boolean {
  return policy?.kind === "cost-aware" || policy?.kind === "budget" || policy?.kind === "cheapest-above";
}

function unpricedModel(id: string, kind: string): ValidationError {
  return new ValidationError(
    `Model "${id}" has no price, and the ${kind} policy ranks by cost (it would be taken as free). Give it one: ` +
      `models: { "${id}": { model, price: { inputPer1M, outputPer1M } } } (USD per million tokens), or ` +
      `price: { inputPer1M: 0, outputPer1M: 0 } for a model that really costs nothing (a local one).`,
    { path: `options.models.${id}.price` },
  );
}

/** The encoder's vector for one text, checked: an EncoderInputError naming `options.encoder` instead of a TypeError later. */
function checkedVector(vector: unknown, ctx: ScoringContext): Float32Array {
  const dim = ctx.encoder?.dim;
  const ok = vector instanceof Float32Array && vector.length === dim && vector.every(Number.isFinite);
  if (ok) return vector;
  const got =
    vector instanceof Float32Array
      ? `a Float32Array of length ${vector.length}${vector.every(Number.isFinite) ? "" : " with non-finite values"}`
      : String(vector);
  throw new EncoderInputError(
    `options.encoder "${ctx.encoder?.id}" returned ${got} for a routing text; it must return one Float32Array of ${dim} finite numbers per text.`,
    { path: "options.encoder" },
  );
}
