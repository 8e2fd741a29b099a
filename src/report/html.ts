/** The report page: one self-contained HTML file with every figure's SVG inlined (no script, no network). */
import type { Figure, OmittedFigure } from "./types.js";

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** What the page says about its inputs (one line each, e.g. "scorer: the pretrained scorer"). */
export interface PageOptions {
  readonly title?: string;
  readonly inputs: readonly string[];
  readonly generatedAt: string;
}

/** Renders the page from the figures (each with its SVG text) and the omitted ones. */
export function reportHtml(
  figures: readonly (Figure & { readonly svg: string })[],
  omitted: readonly OmittedFigure[],
  options: PageOptions,
): string {
  const title = options.title ?? "irt-router report";
  const sections = figures.map(
    (f) =>
      `<section class="figure" id="${f.id}">\n<h2>${escapeHtml(f.title)}</h2>\n<div class="svg">${f.svg}</div>\n` +
      `<p class="caption">${escapeHtml(f.caption)}</p>\n<p class="file">Also as <a href="${f.id}.svg">${f.id}.svg</a>.</p>\n</section>`,
  );
  const missing =
    omitted.length === 0
      ? ""
      : `<section id="omitted"><h2>Figures not drawn</h2><ul>\n${omitted
          .map((o) => `<li><b>${escapeHtml(o.title)}</b>: add ${escapeHtml(o.needs)}</li>`)
          .join("\n")}\n</ul></section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 980px; margin: 2em auto; color: #222; }
.figure { margin: 2.5em 0; } .caption { color: #444; max-width: 760px; } .file { font-size: 0.85em; color: #777; }
.svg svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Generated ${escapeHtml(options.generatedAt)} from:</p>
<ul>
${options.inputs.map((i) => `<li>${escapeHtml(i)}</li>`).join("\n")}
</ul>
${sections.join("\n")}
${missing}
</body>
</html>
`;
}
