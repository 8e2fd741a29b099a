/**
 * Renders the report: each figure's Vega-Lite spec compiled by vega-lite and drawn to SVG by vega's headless View
 * (no browser, no canvas), then the page and the SVG files written to a folder. vega and vega-lite are optional peer
 * dependencies, loaded only here: without them `writeReport` throws a MissingDependencyError naming them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { MissingDependencyError } from "../../src/errors.js";
import { buildFigures } from "../../src/report/build.js";
import { reportHtml } from "../../src/report/html.js";
import type { Figure, OmittedFigure, ReportData } from "../../src/report/types.js";
import { checkOutDir, outDirError } from "../out-dir.js";

/** The exact versions the report is tested with (also the devDependencies). */
export const VEGA_PACKAGES = "vega@6.4.0 vega-lite@6.5.0";

interface VegaModules {
  readonly vega: typeof import("vega");
  readonly vegaLite: typeof import("vega-lite");
}

/** Loads vega and vega-lite, or throws a MissingDependencyError saying what to install. */
export async function loadVega(): Promise<VegaModules> {
  try {
    const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
    return { vega, vegaLite };
  } catch (e) {
    throw new MissingDependencyError(
      VEGA_PACKAGES.split(" "),
      `The report needs the optional packages vega and vega-lite, which are not installed (${(e as Error).message.split("\n")[0]}). ` +
        `Install them beside irt-router: npm install --save-exact ${VEGA_PACKAGES}`,
      { cause: e },
    );
  }
}

/** One figure's SVG text. */
export async function renderSvg(figure: Figure, modules: VegaModules): Promise<string> {
  const { vega, vegaLite } = modules;
  const compiled = vegaLite.compile(figure.spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** What {@link writeReport} wrote. */
export interface WrittenReport {
  /** The folder, absolute. */
  readonly dir: string;
  readonly html: string;
  readonly svgs: readonly string[];
  readonly figures: readonly Figure[];
  readonly omitted: readonly OmittedFigure[];
}

/**
 * Builds every figure the data allows, renders each to SVG and writes `<dir>/index.html` (the SVGs inlined) and
 * `<dir>/<figure-id>.svg`. A `dir` that cannot be a folder, or a write that fails, is a ValidationError naming `--out`.
 */
export async function writeReport(
  dir: string,
  data: ReportData,
  inputs: readonly string[],
  log: (line: string) => void = () => {},
): Promise<WrittenReport> {
  const modules = await loadVega();
  const { figures, omitted } = buildFigures(data);
  await checkOutDir(dir);
  const out = resolve(dir);
  try {
    return await drawInto(out, figures, omitted, inputs, modules, log);
  } catch (error) {
    throw outDirError(error, dir);
  }
}

async function drawInto(
  out: string,
  figures: readonly Figure[],
  omitted: readonly OmittedFigure[],
  inputs: readonly string[],
  modules: VegaModules,
  log: (line: string) => void,
): Promise<WrittenReport> {
  await mkdir(out, { recursive: true });
  const rendered: (Figure & { svg: string })[] = [];
  const svgs: string[] = [];
  for (const figure of figures) {
    const svg = await renderSvg(figure, modules);
    const file = join(out, `${figure.id}.svg`);
    await writeFile(file, svg);
    svgs.push(file);
    rendered.push({ ...figure, svg });
    log(`  drew ${figure.id}.svg (${figure.title})`);
  }
  for (const o of omitted) log(`  not drawn: ${o.title} (add ${o.needs})`);
  const html = join(out, "index.html");
  await writeFile(html, reportHtml(rendered, omitted, { inputs, generatedAt: new Date().toISOString() }));
  return { dir: out, html, svgs, figures, omitted };
}
