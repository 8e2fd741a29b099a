/**
 * Point labels that do not overlap (pure). Vega-Lite draws a text mark where it is told and has no collision
 * avoidance, so the report fixes each scatter plot's scales (explicit domains, no "nice" rounding), computes where
 * each point lands in pixels, and places each label greedily at the first of a few positions around its point whose
 * box meets no other label and no point; a label with no free position is left out (the point keeps its tooltip).
 */

/** A quantitative axis as drawn: its domain, its pixel length and whether it is logarithmic. */
export interface Axis {
  readonly domain: readonly [number, number];
  readonly pixels: number;
  readonly log?: boolean;
}

/** Pixel position of `v` on `axis` (0 at the domain's start). */
export function toPixel(axis: Axis, v: number): number {
  const f = axis.log ? Math.log : (x: number) => x;
  const [a, b] = axis.domain;
  return ((f(v) - f(a)) / (f(b) - f(a))) * axis.pixels;
}

/** The value at pixel `px` on `axis` (inverse of {@link toPixel}). */
export function fromPixel(axis: Axis, px: number): number {
  const [a, b] = axis.domain;
  if (!axis.log) return a + (px / axis.pixels) * (b - a);
  return Math.exp(Math.log(a) + (px / axis.pixels) * (Math.log(b) - Math.log(a)));
}

/** A domain that holds every value with `pad` of its span on each side (on the log of the values for a log axis). */
export function paddedDomain(values: readonly number[], pad = 0.06, log = false): [number, number] {
  const f = log ? Math.log : (x: number) => x;
  const g = log ? Math.exp : (x: number) => x;
  const lo = Math.min(...values.map(f));
  const hi = Math.max(...values.map(f));
  const span = hi - lo || Math.abs(hi) || 1;
  return [g(lo - pad * span), g(hi + pad * span)];
}

/** A placed label's box in pixels (y down, as drawn). */
export interface LabelBox {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** Where a label goes: offset from its point in pixels, its text alignment, and its box; `shown: false` if nowhere. */
export interface LabelPlacement {
  readonly shown: boolean;
  readonly dx: number;
  readonly dy: number;
  readonly align: "left" | "right";
  readonly box: LabelBox;
}

/** Settings of {@link placeLabels}. */
export interface LabelSettings {
  readonly fontSize: number;
  /** Plot area in pixels: labels stay inside it. */
  readonly width: number;
  readonly height: number;
  /** Half the side of the box kept clear around every point. */
  readonly pointRadius?: number;
  /** Width of one character as a share of the font size (a generous estimate for sans-serif). */
  readonly charWidth?: number;
  /** Other marks' points (pixels) that labels must not cover. */
  readonly obstacles?: readonly { x: number; y: number }[];
}

/** Does box `a` meet box `b`? */
export function overlaps(a: LabelBox, b: LabelBox): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * Places a label next to each point (pixel coordinates, y down) so that no two labels overlap and no label covers a
 * point: tries right, then left of the point, each level, then one and two lines up and down; the first free
 * position wins, points in the given order.
 *
 * @example
 * ```ts
 * const [a, b] = placeLabels([{ x: 10, y: 10, text: "alpha" }, { x: 12, y: 10, text: "beta" }], { fontSize: 10, width: 200, height: 100 });
 * // a is right of its point; b is moved so that the two boxes do not meet
 * ```
 */
export function placeLabels(
  points: readonly { x: number; y: number; text: string }[],
  settings: LabelSettings,
): LabelPlacement[] {
  const { fontSize, width, height } = settings;
  const r = settings.pointRadius ?? 4;
  const charWidth = settings.charWidth ?? 0.6;
  const lineHeight = fontSize * 1.2;
  const gap = r + 2;
  const clear = (p: { x: number; y: number }) => ({ left: p.x - r, right: p.x + r, top: p.y - r, bottom: p.y + r });
  const obstacles = (settings.obstacles ?? []).map(clear);
  const pointBoxes = points.map(clear);
  const placed: LabelBox[] = [];
  const candidates: [number, "left" | "right"][] = [];
  for (const dy of [0, -1, 1, -2, 2]) {
    candidates.push([dy * lineHeight, "left"], [dy * lineHeight, "right"]);
  }
  return points.map((p, i) => {
    const w = p.text.length * fontSize * charWidth;
    for (const [dy, align] of candidates) {
      const dx = align === "left" ? gap : -gap;
      const left = align === "left" ? p.x + dx : p.x + dx - w;
      const box = { left, right: left + w, top: p.y + dy - lineHeight / 2, bottom: p.y + dy + lineHeight / 2 };
      if (box.left < 0 || box.right > width || box.top < 0 || box.bottom > height) continue;
      if (placed.some((b) => overlaps(b, box))) continue;
      if (pointBoxes.some((b, k) => k !== i && overlaps(b, box))) continue;
      if (obstacles.some((b) => overlaps(b, box))) continue;
      placed.push(box);
      return { shown: true, dx, dy, align, box };
    }
    return { shown: false, dx: 0, dy: 0, align: "left", box: { left: p.x, right: p.x, top: p.y, bottom: p.y } };
  });
}

/** A label row for a Vega-Lite text layer: where the text is anchored, in data units, and how it is aligned. */
export interface LabelRow {
  readonly text: string;
  readonly labelX: number;
  readonly labelY: number;
  readonly align: "left" | "right";
}

/**
 * Labels for points in data units on the given axes (y up, as plotted): {@link placeLabels} in pixels, then each
 * label's anchor mapped back to data units so a text layer on the same scales draws it where it was placed. Labels
 * with no free position are left out.
 */
export function labelRows(
  points: readonly { x: number; y: number; text: string }[],
  axes: { x: Axis; y: Axis },
  fontSize: number,
  obstacles: readonly { x: number; y: number }[] = [],
): LabelRow[] {
  const pixel = (p: { x: number; y: number }) => ({
    x: toPixel(axes.x, p.x),
    y: axes.y.pixels - toPixel(axes.y, p.y),
  });
  const px = points.map((p) => ({ ...pixel(p), text: p.text }));
  const placed = placeLabels(px, {
    fontSize,
    width: axes.x.pixels,
    height: axes.y.pixels,
    obstacles: obstacles.map(pixel),
  });
  return placed.flatMap((l, i) =>
    l.shown
      ? [
          {
            text: px[i]!.text,
            labelX: fromPixel(axes.x, px[i]!.x + l.dx),
            labelY: fromPixel(axes.y, axes.y.pixels - (px[i]!.y + l.dy)),
            align: l.align,
          },
        ]
      : [],
  );
}

/** Two Vega-Lite text layers (left- and right-aligned) drawing {@link labelRows} on a plot's x and y scales. */
export function labelLayers(rows: readonly LabelRow[], mark: Record<string, unknown>): Record<string, unknown>[] {
  return (["left", "right"] as const)
    .map((align) => ({ align, values: rows.filter((r) => r.align === align) }))
    .filter((g) => g.values.length > 0)
    .map((g) => ({
      data: { values: g.values },
      mark: { type: "text", baseline: "middle", ...mark, align: g.align },
      encoding: {
        x: { field: "labelX", type: "quantitative" },
        y: { field: "labelY", type: "quantitative" },
        text: { field: "text" },
      },
    }));
}
