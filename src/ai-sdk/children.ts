/**
 * The `models` option of both AI SDK faces ({@link IrtRouterModel} over `LanguageModelV3`s, {@link IrtRouterModelV4}
 * over `LanguageModelV4`s): its two forms (children keyed by id, or a list of models and configs) as one list of
 * entries with their ids, and the children's AI SDK versions.
 */

/** A child as the option gives it: a bare model, or a config holding one. */
type Child = { readonly specificationVersion?: unknown; readonly model?: { readonly specificationVersion?: unknown } };

/** The `specificationVersion`s of the children (a bare model's, or a config's `model`'s). */
export function childVersions(models: unknown): Set<unknown> {
  const list = Array.isArray(models) ? models : Object.values((models ?? {}) as Record<string, unknown>);
  return new Set(
    (list as Child[]).map((c) =>
      c && typeof c === "object" && "model" in c ? c.model?.specificationVersion : c?.specificationVersion,
    ),
  );
}

/**
 * The children as entries `{ id, model, ...config }`, in the option's order. A child's id is its key in a record
 * (over a config's own `id`); in a list, a config's `id`, else its model's `modelId`. `isModel` tells a bare model
 * from a config.
 */
export function childEntries<
  M extends { readonly modelId: string },
  C extends { readonly model: M; readonly id?: string },
>(
  models: Readonly<Record<string, M | C>> | readonly (M | C)[],
  isModel: (child: M | C) => child is M,
): (Omit<C, "id"> & { readonly id: string; readonly model: M })[] {
  type Entry = Omit<C, "id"> & { readonly id: string; readonly model: M };
  if (Array.isArray(models)) {
    return (models as readonly (M | C)[]).map((e) =>
      isModel(e) ? ({ id: e.modelId, model: e } as Entry) : ({ id: e.id ?? e.model.modelId, ...e } as Entry),
    );
  }
  return Object.entries(models as Readonly<Record<string, M | C>>).map(([id, e]) =>
    isModel(e) ? ({ id, model: e } as Entry) : ({ ...e, id } as Entry),
  );
}
