/**
 * The report's figure specs: labels that do not overlap, a frontier caption that says what the spec draws, legend
 * colours that are the marks' colours, and one display name per model across figures.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildFigures } from "../../src/report/build.js";
import { FRONTIER_LINE, frontierFigure, frontierLineText } from "../../src/report/figures-eval.js";
import { costsFromEval } from "../../src/report/inputs.js";
import { overlaps, placeLabels, toPixel, type Axis, type LabelBox } from "../../src/report/labels.js";
import { modelNamer } from "../../src/report/names.js";
import type { Figure, ReportData } from "../../src/report/types.js";

const evalJson = JSON.parse(readFileSync("bench/results/eval-routerbench-subset-11models.json", "utf8")) as unknown;
const catalog = (
  JSON.parse(readFileSync("pretrained/catalog.json", "utf8")) as {
    models: { id: string; aliases: string[]; sources: string[]; ability: number[] }[];
  }
).models;
const data: ReportData = { scorerName: "the pretrained scorer", abilities: catalog, costs: costsFromEval(evalJson) };

type Layer = {
  data?: { values: Record<string, unknown>[] };
  mark: string | { type: string; [k: string]: unknown };
  encoding?: Record<string, Record<string, unknown> | undefined>;
};
const layersOf = (f: Figure) => (f.spec as { layer: Layer[] }).layer;
const markType = (l: Layer) => (typeof l.mark === "string" ? l.mark : l.mark.type);
const markProp = (l: Layer, key: string) => (typeof l.mark === "string" ? undefined : l.mark[key]);
const figure = (figures: readonly Figure[], id: string) => figures.find((f) => f.id === id)!;

/** The drawn boxes of a figure's point labels (pixels, y down), from the spec's own scales and sizes. */
function labelBoxes(f: Figure, fontSize: number): { text: string; box: LabelBox }[] {
  const spec = f.spec as {
    width: number;
    height: number;
    encoding: { x: { scale: { domain: [number, number]; type?: string } }; y: { scale: { domain: [number, number] } } };
  };
  const x: Axis = {
    domain: spec.encoding.x.scale.domain,
    pixels: spec.width,
    log: spec.encoding.x.scale.type === "log",
  };
  const y: Axis = { domain: spec.encoding.y.scale.domain, pixels: spec.height };
  const texts = layersOf(f).filter((l) => markType(l) === "text");
  expect(texts.length).toBeGreaterThan(0);
  return texts.flatMap((l) => {
    const align = markProp(l, "align");
    return l.data!.values.map((v) => {
      const text = String(v.text);
      const w = text.length * fontSize * 0.6;
      const px = toPixel(x, v.labelX as number);
      const py = spec.height - toPixel(y, v.labelY as number);
      const left = align === "left" ? px : px - w;
      return { text, box: { left, right: left + w, top: py - fontSize * 0.6, bottom: py + fontSize * 0.6 } };
    });
  });
}

function expectNoOverlap(boxes: { text: string; box: LabelBox }[]) {
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++)
      expect(overlaps(boxes[i]!.box, boxes[j]!.box), `${boxes[i]!.text} / ${boxes[j]!.text}`).toBe(false);
}

describe("point labels", () => {
  it("placeLabels keeps two labels of nearly the same point apart and off each other's point", () => {
    const points = [
      { x: 100, y: 50, text: "mistralai/mixtral-8x7b-chat" },
      { x: 104, y: 50, text: "zero-one-ai/Yi-34B-Chat" },
      { x: 102, y: 52, text: "a third one" },
    ];
    const placed = placeLabels(points, { fontSize: 9, width: 400, height: 200 });
    expect(placed.every((p) => p.shown)).toBe(true);
    for (let i = 0; i < placed.length; i++)
      for (let j = i + 1; j < placed.length; j++) expect(overlaps(placed[i]!.box, placed[j]!.box)).toBe(false);
  });

  it("leaves a label out rather than overlap when there is no room", () => {
    const points = [
      { x: 5, y: 6, text: "a long label here" },
      { x: 6, y: 6, text: "another long label" },
    ];
    const placed = placeLabels(points, { fontSize: 10, width: 120, height: 12 });
    expect(placed.filter((p) => p.shown)).toHaveLength(1);
  });

  it("the frontier's single-model labels (RouterBench: Mixtral and Yi-34B nearly coincide) do not overlap", () => {
    const f = frontierFigure(data.costs!, modelNamer(data.abilities));
    const boxes = labelBoxes(f, 9);
    expect(boxes.map((b) => b.text)).toContain("zero-one-ai/Yi-34B-Chat");
    expectNoOverlap(boxes);
  });

  it("the ability projection's labels do not overlap, and the caption counts those left out", () => {
    const f = figure(buildFigures(data).figures, "ability-projection");
    const boxes = labelBoxes(f, 10);
    expectNoOverlap(boxes);
    const left = catalog.length - boxes.length;
    if (left > 0) expect(f.caption).toContain(`${left} of the ${catalog.length} labels`);
  });
});

describe("frontier caption", () => {
  it("describes the line the spec draws: its interpolation and the points it is computed over", () => {
    const f = frontierFigure(data.costs!);
    const line = layersOf(f).find((l) => markType(l) === "line" && markProp(l, "color") === "black")!;
    expect(markProp(line, "interpolate")).toBe(FRONTIER_LINE.interpolate);
    expect(f.caption).toContain(frontierLineText(FRONTIER_LINE));
    expect(frontierLineText({ includesSingles: true, interpolate: "step-after" })).toMatch(
      /over every policy point and single model.*runs flat to the next costlier one, where it steps up/,
    );
    // computed over the single models too: a single model above every policy point ends the line
    expect(FRONTIER_LINE.includesSingles).toBe(true);
    const small = frontierFigure({
      source: "t",
      per: "query",
      singles: [{ name: "big", cost: 3, accuracy: 0.9 }],
      policies: [
        {
          name: "p",
          points: [
            { name: "p", cost: 1, accuracy: 0.5 },
            { name: "p", cost: 2, accuracy: 0.6 },
          ],
        },
      ],
    });
    const frontierOf = (g: Figure) =>
      layersOf(g).find((l) => markType(l) === "line" && markProp(l, "color") === "black")!;
    expect(frontierOf(small).data!.values.map((v) => v.name)).toEqual(["p#0", "p#1", "big"]);
  });
});

describe("legend colours and model names", () => {
  const demo: ReportData = {
    ...data,
    decisions: {
      source: "t",
      rows: [
        { model: "mistralai/mixtral-8x7b-chat", category: "a" },
        { model: "gpt-4-1106-preview", category: "a" },
        { model: "gpt-3.5-turbo-1106", category: "b" },
      ],
    },
    learning: {
      source: "t",
      curves: ["acme-new-model", "mixtral-8x7b-instruct-v0.1", "gpt-4-1106-preview"].map((model) => ({
        model,
        events: 1,
        estimate: 0,
        sd: 1,
      })),
      share: ["acme-new-model", "mixtral-8x7b-instruct-v0.1", "gpt-4-1106-preview"].map((model) => ({
        model,
        events: 1,
        share: 1 / 3,
      })),
    },
  };
  const { figures } = buildFigures(demo);
  const colourOf = (f: Figure) => {
    const enc = (layersOf(f)?.[0]?.encoding ?? (f.spec as { encoding: Layer["encoding"] }).encoding)!;
    const scale = enc.color!.scale as { domain: string[]; range: string[] };
    return new Map(scale.domain.map((m, i) => [m, scale.range[i]!]));
  };

  it("names a model the same in every figure (a dataset's name resolves to the catalog's label)", () => {
    const routed = figure(figures, "routing-share").spec as { data: { values: { model: string }[] } };
    const learned = figure(figures, "learning-share").spec as { data: { values: { model: string }[] } };
    expect(new Set(routed.data.values.map((v) => v.model))).toEqual(
      new Set(["mixtral-8x7b-instruct-v0.1", "gpt-4-1106-preview", "gpt-3.5-turbo-1106"]),
    );
    expect(learned.data.values.map((v) => v.model)).toContain("mixtral-8x7b-instruct-v0.1");
    // RouterBench's own name for Mixtral is RouterBench's catalog row, drawn under the label the ability map gives it
    const frontier = figure(figures, "frontier");
    const singles = layersOf(frontier)
      .find((l) => markType(l) === "square")!
      .data!.values.map((v) => v.name);
    const projected = (figure(figures, "ability-projection").spec as { layer: Layer[] }).layer[0]!.data!.values.map(
      (v) => v.model,
    );
    const mixtral = singles.find((n) => String(n).startsWith("mixtral"));
    expect(mixtral).toBeDefined();
    expect(projected).toContain(mixtral);
    expect(singles).not.toContain("mistralai/mixtral-8x7b-chat");
  });

  it("gives a model one colour in every figure, legend domain = the marks' models", () => {
    const routing = colourOf(figure(figures, "routing-share"));
    const share = colourOf(figure(figures, "learning-share"));
    const curves = colourOf(figure(figures, "learning-ability"));
    for (const m of ["mixtral-8x7b-instruct-v0.1", "gpt-4-1106-preview"]) {
      expect(routing.get(m)).toBeDefined();
      expect(share.get(m)).toBe(routing.get(m));
      expect(curves.get(m)).toBe(routing.get(m));
    }
    expect([...routing.keys()].sort()).toEqual([
      "gpt-3.5-turbo-1106",
      "gpt-4-1106-preview",
      "mixtral-8x7b-instruct-v0.1",
    ]);
  });

  it("draws the learning curves' legend as solid strokes, not the faint bands' colour", () => {
    const f = figure(figures, "learning-ability");
    for (const l of layersOf(f)) {
      const legend = l.encoding!.color!.legend as { symbolOpacity: number; symbolType: string };
      expect(legend.symbolOpacity).toBe(1);
      expect(legend.symbolType).toBe("stroke");
    }
  });
});
