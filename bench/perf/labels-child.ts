/**
 * Child of `npm run bench -- labels-memory` (`node --import tsx bench/perf/labels-child.ts <folder|-> `): loads the
 * your-own-data folder (or, with `-`, only imports the loader: the baseline) and prints one JSON line with its peak
 * resident set size, its heap after loading and the load's wall time.
 */
import { loadOwnDataFolder } from "../../adapters/data/own-data.js";

const folder = process.argv[2]!;
const t0 = performance.now();
let labels = 0;
if (folder !== "-") labels = (await loadOwnDataFolder(folder)).labels.model.length;
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024, heapUsed: process.memoryUsage().heapUsed, ms, labels })}\n`,
);
