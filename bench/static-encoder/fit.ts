/**
 * How close the static table's text vectors come to USE-lite's, before and after fitting the rows on whole texts
 * (distil.ts): fits on the train texts of `--fit` datasets at each `--lambdas` and prints the mean cosine between
 * the static and USE-lite vectors of every dataset's val texts (unreduced 512-dim rows, no PCA or quantization).
 * Reads no correctness labels and no test items. Used to find the range of lambda worth training a scorer on
 * (variants.ts then chooses on val AUC).
 *
 * `IRT_ROUTER_CACHE=<cache> npx tsx bench/static-encoder/fit.ts [--fit a,b] [--lambdas 0.01,0.1] [--iterations 15]`
 * (about 1-2 min per lambda on 2 cores).
 */
import { z } from "zod";
import { USE_LITE_DIM } from "../../adapters/encoders/use-lite.js";
import { fitRows, MAX_FIT_ITERATIONS, meanCosine } from "./distil.js";
import { concatParts, datasetParts, fitInputs, type FitPart } from "./fit-data.js";
import { loadTeacher, pieceVectors } from "./teacher.js";
import { listFlag, positiveDecimalFlag, positiveIntFlag, scriptFlags } from "../flags.js";

const ALL = ["routerbench-subset-11models", "routellm-2models", "mmlu-pro-29models", "routerdc-7models"];
const values = scriptFlags(
  "bench/static-encoder/fit.ts",
  { fit: { type: "string" }, lambdas: { type: "string" }, iterations: { type: "string" } },
  z
    .object({
      fit: listFlag(z.string()).default(ALL),
      lambdas: listFlag(positiveDecimalFlag()).default([0.001, 0.01, 0.1]),
      iterations: positiveIntFlag(undefined, { max: MAX_FIT_ITERATIONS }).default(15),
    })
    .strict(),
);
const { fit: fitSets, lambdas, iterations } = values;
const teacher = await loadTeacher();
const onePiece = await pieceVectors(teacher);
/** The build's default SIF parameter (build.ts `--sif-a`). */
const { tokenize, weight } = fitInputs(teacher, 1e-3);
const parts = new Map<string, { train: FitPart; val: FitPart }>();
for (const name of ALL) parts.set(name, await datasetParts(name, tokenize, weight));
const report = (label: string, rows: ArrayLike<number>) =>
  console.log(
    `${label}: val cosine ` +
      ALL.map((n) => {
        const { bag, targets } = parts.get(n)!.val;
        return `${n} ${meanCosine(bag, rows, targets, USE_LITE_DIM).toFixed(4)}`;
      }).join(", "),
  );
report("one-token rows", onePiece);
const fitPart = concatParts(fitSets.map((n) => parts.get(n)!.train));
for (const lambda of lambdas) {
  const fitted = fitRows(fitPart.bag, fitPart.targets, onePiece, teacher.rows, USE_LITE_DIM, { lambda, iterations });
  report(`fitted on ${fitSets.join("+")}, lambda ${lambda}`, fitted.rows);
}
