/**
 * `npm run report:figure`: the README's figure. Writes the report of the pretrained scorer plus the committed
 * RouterBench eval result (bench/results/eval-routerbench-subset-11models.json) to .cache/report-figure/, opens it in
 * headless Chromium and screenshots the cost-accuracy frontier to docs/img/report-frontier.png. Needs
 * Chromium (apt-get install -y chromium, or CHROMIUM_PATH); about 10 s.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { main } from "../adapters/cli/main.js";
import { checkReportPage } from "./report-browser.js";

const out = ".cache/report-figure";
process.stderr.write("Writing the report and screenshotting the frontier in headless Chromium (about 10 s)...\n");
const code = await main(["report", "--eval", "bench/results/eval-routerbench-subset-11models.json", "--out", out]);
if (code !== 0) process.exit(code);
mkdirSync("docs/img", { recursive: true });
const figures = {
  frontier: "docs/img/report-frontier.png",
  "ability-projection": "docs/img/report-ability-projection.png",
};
const page = await checkReportPage(join(out, "index.html"), { figures });
if (page.consoleErrors.length > 0) throw new Error(`the page logged errors: ${page.consoleErrors.join("; ")}`);
process.stderr.write(`Wrote ${Object.values(figures).join(", ")}\n`);
