/**
 * Opens a written report in headless Chromium (puppeteer-core, a dev dependency that downloads nothing; Chromium from
 * the system: Debian's `chromium`, or CHROMIUM_PATH), and reports what the page rendered and logged. Used by the
 * browser check (test/report.int.test.ts) and by `npm run report:figure` (the README's PNG).
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Where Chromium is looked for, in order. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((c): c is string => Boolean(c) && existsSync(c!));
}

export interface PageCheck {
  /**
   * Per figure section: its id, the inlined SVG's drawn size, the count of marks (paths, rects, symbols) and of pairs
   * of its text marks (point labels, not axis labels) whose drawn boxes overlap.
   */
  readonly figures: { id: string; width: number; height: number; marks: number; labelOverlaps: number }[];
  readonly consoleErrors: string[];
}

/**
 * Loads `htmlFile`, screenshots the whole page to `pagePng` (when given) and each `figurePng[id]` element, and
 * returns what rendered.
 */
export async function checkReportPage(
  htmlFile: string,
  shots: { pagePng?: string; figures?: Record<string, string> } = {},
): Promise<PageCheck> {
  const executablePath = chromiumPath();
  if (!executablePath)
    throw new Error("Chromium not found: apt-get install -y chromium (Debian), or set CHROMIUM_PATH to its binary.");
  const puppeteer = await import("puppeteer-core");
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.setViewport({ width: 1100, height: 900, deviceScaleFactor: 2 });
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load" });
    if (shots.pagePng) await page.screenshot({ path: shots.pagePng as `${string}.png`, fullPage: true });
    for (const [id, file] of Object.entries(shots.figures ?? {})) {
      const el = await page.$(`#${id} .svg svg`);
      if (!el) throw new Error(`figure ${id} is not on the page`);
      await el.screenshot({ path: file as `${string}.png` });
    }
    const figures = await page.$$eval("section.figure", (sections) =>
      sections.map((s) => {
        const svg = s.querySelector(".svg svg");
        const box = svg?.getBoundingClientRect();
        const labels = svg
          ? [...svg.querySelectorAll("g.mark-text.role-mark text")].map((t) => t.getBoundingClientRect())
          : [];
        let labelOverlaps = 0;
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++) {
            const [a, b] = [labels[i]!, labels[j]!];
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) labelOverlaps++;
          }
        return {
          id: s.id,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          marks: svg ? svg.querySelectorAll("g.role-mark > *").length : 0,
          labelOverlaps,
        };
      }),
    );
    return { figures, consoleErrors };
  } finally {
    await browser.close();
  }
}
