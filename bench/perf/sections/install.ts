/**
 * `npm run bench -- install`: what a user installs and how soon a fresh process routes. Packs the package
 * (`npm pack`, which builds it), installs the tarball with `@langchain/core` into empty projects in a temporary
 * folder (npm's registry is used for the dependencies), once alone and once with the optional tfjs packages, and
 * reports `node_modules` sizes. Then, in those projects, spawns fresh Node processes that route one call (a real
 * IrtRouter over two fake chat models from @langchain/core's testing utilities, the pretrained scorer) with the
 * static encoder and with USE-lite, and reports the time from process start to the routed reply. The first static
 * run has no network at all (`unshare -rn`, where available).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TF_PACKAGES } from "../../../adapters/tf.js";
import { mdTable, percentile, type BenchSection } from "../section.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const LANGCHAIN_CORE = "@langchain/core@1.4.0";
const RUNS = 15;

/**
 * The application each fresh process runs: route one call, print the time since process start and the choice, and
 * end with `process.exit(0)`, every mode alike. (Until 0.4.0 only the baseline did: the routed processes ended by
 * Node's natural exit, whose teardown takes longer than `process.exit`, so "wall" charged the router for a different
 * way of ending, 20-60 ms on this machine.)
 */
const APP = `const marks = {};
const mark = (name) => (marks[name] = performance.now());
const { FakeListChatModel } = await import("@langchain/core/utils/testing");
mark("core");
const mode = process.argv[2];
if (mode === "baseline") {
  const reply = await new FakeListChatModel({ responses: ["ok"] }).invoke("Prove that the square root of 2 is irrational.");
  console.log(JSON.stringify({ ms: performance.now(), marks, chosen: "-", reply: reply.content }));
  process.exit(0);
}
const { IrtRouter } = await import("irt-router/langchain");
mark("root");
let options = {};
if (mode !== "default") {
  const { StaticEncoder, UseLiteEncoder, loadPretrained } = await import("irt-router/adapters");
  mark("adapters");
  const encoder = mode === "static" ? await StaticEncoder.load() : await UseLiteEncoder.load();
  mark("encoder");
  options = { encoder, scorer: await loadPretrained({ encoder }) };
  mark("scorer");
}
const fake = (text) => new FakeListChatModel({ responses: [text] });
const router = new IrtRouter({
  models: {
    "gpt-4-1106-preview": { model: fake("strong"), price: { inputPer1M: 10, outputPer1M: 30 } },
    "mistralai/mistral-7b-chat": { model: fake("cheap"), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
  },
  ...options,
});
const reply = await router.invoke("Prove that the square root of 2 is irrational.");
const { chosen } = reply.response_metadata.irtRouter;
console.log(JSON.stringify({ ms: performance.now(), marks, chosen, reply: reply.content }));
process.exit(0);
`;

function sh(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 });
}

/** Bytes of the files under `dir` (apparent sizes, like `du -sb`). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** `du -sh`'s figure (disk usage, blocks), as the issue states it. */
const duSh = (dir: string) => sh("du", ["-sh", dir], dir).split("\t")[0]!;

function makeApp(root: string, name: string, tarball: string | undefined, extra: string[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }, null, 2));
  writeFileSync(join(dir, "route.mjs"), APP);
  sh(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", ...(tarball ? [tarball] : []), LANGCHAIN_CORE, ...extra],
    dir,
  );
  return dir;
}

interface Run {
  ms: number;
  wall: number;
  chosen: string;
  marks: Record<string, number>;
}

function route(dir: string, mode: string, offline: boolean): Run {
  const args = ["route.mjs", mode];
  const t0 = performance.now();
  const r = offline
    ? spawnSync("unshare", ["-rn", process.execPath, ...args], { cwd: dir, encoding: "utf8", timeout: 120_000 })
    : spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", timeout: 120_000 });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`route.mjs ${mode} in ${dir} failed (${r.status}): ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Omit<Run, "wall">;
  return { ...out, wall };
}

const canUnshare = () => spawnSync("unshare", ["-rn", "true"]).status === 0;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const f0 = (x: number) => x.toFixed(0);

const p50 = (xs: number[]) => percentile(xs, 50);

/** Issue 37's target: the default router's first routed call (whole process) within this many times the baseline's. */
const FIRST_CALL_RATIO_TARGET = 1.25;

/**
 * The first-call ratio of issue 37: the default router (`new IrtRouter({ models })`, one routed call) over the bare
 * LangChain chat model's first call, whole process (spawn to exit, "wall") and in process, p50 of processes run
 * alternately in this one run, against {@link FIRST_CALL_RATIO_TARGET}.
 */
function firstCallVerdict(baseline: Run[], routed: Run[]): string {
  const wall = p50(routed.map((r) => r.wall)) / p50(baseline.map((r) => r.wall));
  const inProcess = p50(routed.map((r) => r.ms)) / p50(baseline.map((r) => r.ms));
  return (
    `First call (issue 37): the default router / the bare chat model, whole process (wall p50): ${wall.toFixed(2)}x; ` +
    `in process: ${inProcess.toFixed(2)}x. Target: at most ${FIRST_CALL_RATIO_TARGET}x (whole process): ` +
    `${wall <= FIRST_CALL_RATIO_TARGET ? "met" : "NOT met"}. Processes alternated in one run on a shared machine ` +
    "(other work running): the ratio, not the milliseconds, is the comparable figure."
  );
}

/** p50 of each phase of the static runs: ms between consecutive marks (process start = 0). */
function phases(rs: Run[]): (string | number)[][] {
  const steps: [string, string | undefined, string][] = [
    ["Node start + import @langchain/core (the application's own)", undefined, "core"],
    ["import irt-router/langchain (the router and middleware, over the root core)", "core", "root"],
    ["import irt-router/adapters", "root", "adapters"],
    ["StaticEncoder.load() (read, tokenizer, table)", "adapters", "encoder"],
    ["loadPretrained() (read, decode)", "encoder", "scorer"],
    ["new IrtRouter + first invoke", "scorer", "end"],
  ];
  const at = (r: Run, k: string | undefined) => (k === undefined ? 0 : k === "end" ? r.ms : r.marks[k]!);
  return steps.map(([label, from, to]) => [label, f0(p50(rs.map((r) => at(r, to) - at(r, from))))]);
}

export async function run(): Promise<BenchSection> {
  const load = loadavg()[0]!;
  const root = mkdtempSync(join(tmpdir(), "irt-router-install-"));
  try {
    // npm pack runs the package's prepare script, which may print before the JSON (a first install of Node 22)
    const packOut = sh("npm", ["pack", "--json", "--pack-destination", root], repo);
    const packed = JSON.parse(packOut.slice(Math.max(0, packOut.search(/^\[/m)))) as {
      filename: string;
      size: number;
      unpackedSize: number;
    }[];
    const tarball = join(root, packed[0]!.filename);
    const optional = Object.entries(TF_PACKAGES).map(([name, version]) => `${name}@${version}`);
    const apps = {
      core: makeApp(root, "app-core", undefined, []),
      slim: makeApp(root, "app-slim", tarball, []),
      full: makeApp(root, "app-full", tarball, optional),
    };
    const size = (dir: string) => ({
      bytes: bytesUnder(join(dir, "node_modules")),
      du: duSh(join(dir, "node_modules")),
    });
    const sizes = { core: size(apps.core), slim: size(apps.slim), full: size(apps.full) };
    const offline = canUnshare();
    const first = route(apps.slim, "static", offline);
    const runs = { static: [first], baseline: [] as Run[], useLite: [] as Run[], defaultFull: [] as Run[] };
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) runs.static.push(route(apps.slim, "static", false));
      runs.baseline.push(route(apps.slim, "baseline", false));
      runs.useLite.push(route(apps.full, "use-lite", false));
      runs.defaultFull.push(route(apps.full, "default", false));
    }
    const row = (label: string, rs: Run[]) => {
      const p = p50(rs.map((r) => r.ms));
      return { p, cells: [label, f0(p), f0(p50(rs.map((r) => r.wall))), rs[0]!.chosen] };
    };
    const b = row("baseline: import @langchain/core, invoke a fake chat model (no router)", runs.baseline);
    const s = row("static encoder (`StaticEncoder.load()`, pretrained static scorer), app without tfjs", runs.static);
    const u = row(
      "USE-lite (`UseLiteEncoder.load()`, pretrained scorer), app with the optional packages",
      runs.useLite,
    );
    const d = row(
      "the default (`new IrtRouter({ models })`: the static encoder), app with the optional packages",
      runs.defaultFull,
    );
    const ours = sizes.slim.bytes - sizes.core.bytes;
    return {
      title: "Install size and time to the first routed call",
      markdown: [
        `\`npm pack\` tarball: ${mb(packed[0]!.size)} MB (${mb(packed[0]!.unpackedSize)} MB unpacked). Each project is an empty ` +
          `folder with \`npm install <tarball> ${LANGCHAIN_CORE}\` (its only required peer; \`langchain\` and \`@huggingface/inference\` are optional peers, not installed); ` +
          `"with the optional packages" adds ${optional.join(", ")}; the baseline is ` +
          `\`npm install ${LANGCHAIN_CORE}\` alone.`,
        "",
        mdTable(
          ["project", "node_modules (bytes of files)", "du -sh"],
          [
            [`baseline: ${LANGCHAIN_CORE} alone`, `${mb(sizes.core.bytes)} MB`, sizes.core.du],
            ["tarball + @langchain/core", `${mb(sizes.slim.bytes)} MB`, sizes.slim.du],
            ["tarball + @langchain/core + optional tfjs packages", `${mb(sizes.full.bytes)} MB`, sizes.full.du],
          ],
        ),
        "",
        `irt-router adds ${mb(ours)} MB to the baseline without the optional packages, ` +
          `${mb(sizes.full.bytes - sizes.core.bytes)} MB with them (${(sizes.full.bytes / sizes.slim.bytes).toFixed(1)}x the ` +
          `slim project). Target (issues 24, 37): under 60 MB without the optional packages: ${mb(sizes.slim.bytes)} MB ` +
          `(${sizes.slim.bytes < 60e6 ? "met" : "NOT met"}). The first static run below routed ` +
          `${offline ? "with no network (`unshare -rn`)" : "(unshare unavailable: the network was not cut)"} and chose ${first.chosen}.`,
        "",
        `Time to the first routed call of a fresh process (\`node route.mjs\` in the project: import the package, load the ` +
          `encoder and the pretrained scorer, route one call through two fake chat models), ${RUNS} processes each, ` +
          `interleaved; "in process" is \`performance.now()\` at the reply (since process start), "wall" the spawn to ` +
          `the exit (every process ends with \`process.exit(0)\` after printing). Load average when the run started: ${load.toFixed(1)} on ${cpus().length} cores (shared machine).`,
        "",
        mdTable(["process", "in process p50 ms", "wall p50 ms", "chose"], [b.cells, s.cells, u.cells, d.cells]),
        "",
        "Where the static process's time goes (p50 of each phase, ms):",
        "",
        mdTable(["phase", "p50 ms"], phases(runs.static)),
        "",
        `USE-lite / static (in process, p50): ${(u.p / s.p).toFixed(1)}x; static / baseline: ${(s.p / b.p).toFixed(1)}x ` +
          `(+${f0(s.p - b.p)} ms). Target (issue 24): a fresh process routes its first call within 300 ms: static ` +
          `${f0(s.p)} ms (${s.p <= 300 ? "met" : "NOT met"}; the baseline alone takes ${f0(b.p)} ms here).`,
        "",
        firstCallVerdict(runs.baseline, runs.defaultFull),
      ].join("\n"),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
