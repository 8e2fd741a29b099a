/**
 * Browser check of `irt-router report`: the report of the pretrained scorer plus the committed `eval --json` result
 * of RouterBench (bench/results/eval-routerbench-subset-11models.json) and the built-in demo's decisions, and the
 * report the built-in demo writes itself, each opened in
 * headless Chromium (the system's; see scripts/report-browser.ts). Every figure drawn must be on the page with a
 * non-zero size and drawn marks, the page must log no error, and a screenshot is taken.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../adapters/cli/main.js";
import { checkReportPage, chromiumPath } from "../scripts/report-browser.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-report-int-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; stdout: string }> {
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
  try {
    return { code: await main(argv), stdout: out.join("") };
  } finally {
    process.stdout.write = write;
  }
}

describe("report in a browser", () => {
  it("renders every figure of the pretrained scorer + RouterBench eval report in Chromium, with no console error", async () => {
    expect(chromiumPath(), "Chromium is needed: apt-get install -y chromium (or set CHROMIUM_PATH)").toBeDefined();
    const demo = await cli(["demo", "--json"]);
    expect(demo.code).toBe(0);
    writeFileSync(join(tmp, "demo.json"), demo.stdout);
    const out = join(tmp, "report");
    const report = await cli([
      "report",
      "--eval",
      "bench/results/eval-routerbench-subset-11models.json",
      "--decisions",
      join(tmp, "demo.json"),
      "--out",
      out,
    ]);
    expect(report.code).toBe(0);
    const expected = ["ability-heatmap", "ability-projection", "reliability", "frontier", "routing-share"];
    for (const id of expected) expect(statSync(join(out, `${id}.svg`)).size).toBeGreaterThan(1000);
    const shot = join(tmp, "page.png");
    const page = await checkReportPage(join(out, "index.html"), { pagePng: shot });
    expect(page.consoleErrors).toEqual([]);
    expect(page.figures.map((f) => f.id)).toEqual(expected);
    for (const f of page.figures) {
      expect(f.width, f.id).toBeGreaterThan(100);
      expect(f.height, f.id).toBeGreaterThan(100);
      expect(f.marks, f.id).toBeGreaterThan(2);
    }
    // point labels drawn where they do not overlap (before the fix: Mixtral and Yi-34B on the frontier, 11 pairs
    // on the ability projection)
    for (const id of ["frontier", "ability-projection"])
      expect(page.figures.find((f) => f.id === id)!.labelOverlaps, id).toBe(0);
    expect(statSync(shot).size).toBeGreaterThan(50_000);
  });

  it("renders the report the built-in demo writes (routing share, frontier, learning curves)", async () => {
    const out = join(tmp, "demo-report");
    const demo = await cli(["demo", "--report", out]);
    expect(demo.code).toBe(0);
    const page = await checkReportPage(join(out, "index.html"));
    expect(page.consoleErrors).toEqual([]);
    expect(page.figures.map((f) => f.id)).toEqual([
      "ability-heatmap",
      "ability-projection",
      "frontier",
      "routing-share",
      "learning-ability",
      "learning-share",
    ]);
    for (const f of page.figures) expect(f.marks, f.id).toBeGreaterThan(2);
  });
});
