import { DatasetFormatError } from "../../src/errors.js";
import { columnIndex, parseCsv, type CsvTable } from "../../src/data/csv.js";
import { CsrBuilder } from "../../src/data/csr.js";
import { mmluProText, normalizeNewlines, routerBenchText, TEXT_RULES_VERSION } from "../../src/data/text-rules.js";
import type { CorrectnessDataset, DatasetItem } from "../../src/data/types.js";
import { labelKindOf, matrixToCsr, parseLabelCell } from "./matrix.js";
import { SourceFiles } from "./source-files.js";
import { firstRepeat } from "../../src/util/repeats.js";

/** Which labels to load where a dataset offers more than one kind. */
export type LabelChoice = "binary" | "soft";

/** Options of the built-in loaders. */
export interface BuiltinLoadOptions {
  /** `routerdc-7models` only: `"binary"` (protocol, default) or `"soft"` (raw scores as graded targets). */
  labels?: LabelChoice;
}

/** A dataset of the shared data root that has its own loader. */
export interface BuiltinDataset {
  readonly name: string;
  /** Files that must exist in the folder. */
  readonly files: readonly string[];
  load(dir: string, options: BuiltinLoadOptions): Promise<CorrectnessDataset>;
}

function assertUniqueIds(table: CsvTable, file: string): void {
  const twice = firstRepeat(table.records.map((r) => r.fields[0]!));
  if (twice) {
    const line = table.records[twice.at]!.line;
    throw new DatasetFormatError(
      `${file} line ${line}: duplicate item id "${twice.value}" (first on line ${table.records[twice.first]!.line}).`,
      { file, line },
    );
  }
}

function describe(name: string, options: Record<string, unknown> = {}): string {
  return JSON.stringify({ loader: name, textRules: TEXT_RULES_VERSION, ...options });
}

function requireText(text: string, file: string, line: number, id: string): string {
  if (text.trim() === "") {
    throw new DatasetFormatError(`${file} line ${line}: item "${id}" has an empty text.`, { file, line });
  }
  return text;
}

const mmluPro: BuiltinDataset = {
  name: "mmlu-pro-29models",
  files: ["questions.csv.gz", "correctness_matrix.csv.gz"],
  async load(dir) {
    const src = new SourceFiles(dir, describe(this.name));
    const qFile = src.path("questions.csv.gz");
    const questions = parseCsv(await src.text("questions.csv.gz"), qFile);
    const col = columnIndex(questions.header, ["question_id", "category", "src", "question", "options"], qFile);
    // The answer key (option letter), kept in meta for graders (multipleChoiceProbes). Read from the file already
    // hashed, with the loader description unchanged: source.sha256, and every cache keyed by it, stay as they were.
    const answerCol = questions.header.indexOf("answer");
    assertUniqueIds(questions, qFile);
    const items: DatasetItem[] = questions.records.map(({ fields, line }) => {
      const id = fields[col.question_id!]!;
      const text = mmluProText(fields[col.question!]!, fields[col.options!]!, { file: qFile, line });
      const answer = answerCol >= 0 ? fields[answerCol]!.trim() : "";
      return {
        id,
        text: requireText(text, qFile, line, id),
        category: fields[col.category!]!,
        meta: { src: fields[col.src!]!, ...(answer ? { answer } : {}) },
      };
    });
    const lFile = src.path("correctness_matrix.csv.gz");
    const { models, labels } = matrixToCsr({
      itemIds: items.map((i) => i.id),
      labels: parseCsv(await src.text("correctness_matrix.csv.gz"), lFile),
      labelsFile: lFile,
    });
    return { name: this.name, models, items, labels, labelKind: labelKindOf(labels.y), source: src.finish() };
  },
};

const routerBench: BuiltinDataset = {
  name: "routerbench-subset-11models",
  files: ["prompts.csv.gz", "correctness_matrix.csv.gz", "cost_matrix_usd.csv.gz"],
  async load(dir) {
    const src = new SourceFiles(dir, describe(this.name));
    const pFile = src.path("prompts.csv.gz");
    const prompts = parseCsv(await src.text("prompts.csv.gz"), pFile);
    const col = columnIndex(prompts.header, ["sample_id", "eval_name", "prompt"], pFile);
    assertUniqueIds(prompts, pFile);
    const items: DatasetItem[] = prompts.records.map(({ fields, line }) => {
      const id = fields[col.sample_id!]!;
      const text = routerBenchText(fields[col.prompt!]!, { file: pFile, line });
      return { id, text: requireText(text, pFile, line, id), category: fields[col.eval_name!]! };
    });
    const lFile = src.path("correctness_matrix.csv.gz");
    const cFile = src.path("cost_matrix_usd.csv.gz");
    const { models, labels } = matrixToCsr({
      itemIds: items.map((i) => i.id),
      labels: parseCsv(await src.text("correctness_matrix.csv.gz"), lFile),
      labelsFile: lFile,
      cost: parseCsv(await src.text("cost_matrix_usd.csv.gz"), cFile),
      costFile: cFile,
    });
    return { name: this.name, models, items, labels, labelKind: labelKindOf(labels.y), source: src.finish() };
  },
};

const routerDc: BuiltinDataset = {
  name: "routerdc-7models",
  files: ["questions.csv.gz", "correctness_binarized_matrix.csv.gz"],
  async load(dir, options) {
    const choice = options.labels ?? "binary";
    const src = new SourceFiles(dir, describe(this.name, { labels: choice }));
    const qFile = src.path("questions.csv.gz");
    const questions = parseCsv(await src.text("questions.csv.gz"), qFile);
    const col = columnIndex(questions.header, ["qid", "task", "split", "question"], qFile);
    assertUniqueIds(questions, qFile);
    const items: DatasetItem[] = questions.records.map(({ fields, line }) => {
      const id = fields[col.qid!]!;
      return {
        id,
        text: requireText(normalizeNewlines(fields[col.question!]!), qFile, line, id),
        category: fields[col.task!]!,
        meta: { upstreamSplit: fields[col.split!]! },
      };
    });
    const labelName = choice === "soft" ? "scores_matrix.csv.gz" : "correctness_binarized_matrix.csv.gz";
    const lFile = src.path(labelName);
    const { models, labels } = matrixToCsr({
      itemIds: items.map((i) => i.id),
      labels: parseCsv(await src.text(labelName), lFile),
      labelsFile: lFile,
    });
    return { name: this.name, models, items, labels, labelKind: labelKindOf(labels.y), source: src.finish() };
  },
};

const routeLlm: BuiltinDataset = {
  name: "routellm-2models",
  files: ["routellm_mmlu_gsm8k.csv.gz"],
  async load(dir) {
    const src = new SourceFiles(dir, describe(this.name));
    const file = src.path("routellm_mmlu_gsm8k.csv.gz");
    const table = parseCsv(await src.text("routellm_mmlu_gsm8k.csv.gz"), file);
    const fixed = ["qid", "benchmark", "subject", "in_routellm_contaminated_list", "prompt"];
    const col = columnIndex(table.header, fixed, file);
    assertUniqueIds(table, file);
    const models = table.header.filter((h) => !fixed.includes(h));
    if (models.length === 0) throw new DatasetFormatError(`${file} line 1: no model columns found.`, { file, line: 1 });
    const modelCols = models.map((m) => table.header.indexOf(m));
    const builder = new CsrBuilder(false);
    const items: DatasetItem[] = table.records.map(({ fields, line }) => {
      const id = fields[col.qid!]!;
      modelCols.forEach((k, m) => {
        const y = parseLabelCell(fields[k]!, file, line, models[m]!);
        if (y !== undefined) builder.add(m, y);
      });
      builder.endItem();
      return {
        id,
        text: requireText(normalizeNewlines(fields[col.prompt!]!), file, line, id),
        category: fields[col.benchmark!]!,
        meta: {
          subject: fields[col.subject!]!,
          inRoutellmContaminatedList: fields[col.in_routellm_contaminated_list!]!,
        },
      };
    });
    const labels = builder.build();
    return { name: this.name, models, items, labels, labelKind: labelKindOf(labels.y), source: src.finish() };
  },
};

/** The four datasets of the shared data root, by folder name. */
export const BUILTIN_DATASETS: Readonly<Record<string, BuiltinDataset>> = {
  [mmluPro.name]: mmluPro,
  [routerBench.name]: routerBench,
  [routerDc.name]: routerDc,
  [routeLlm.name]: routeLlm,
};
