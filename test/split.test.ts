import { describe, expect, it } from "vitest";
import { splitOf } from "../src/data/split.js";

// Check values of ../shared/data/split-check.csv (computed by an independent implementation
// of the protocol's split rule), pinned here so the rule cannot drift.
const CHECK: [string, string, "train" | "val" | "test"][] = [
  ["mmlu-pro-29models", "70", "train"],
  ["mmlu-pro-29models", "71", "train"],
  ["mmlu-pro-29models", "72", "train"],
  ["mmlu-pro-29models", "73", "train"],
  ["mmlu-pro-29models", "75", "val"],
  ["mmlu-pro-29models", "81", "val"],
  ["mmlu-pro-29models", "84", "val"],
  ["mmlu-pro-29models", "85", "val"],
  ["mmlu-pro-29models", "77", "test"],
  ["mmlu-pro-29models", "82", "test"],
  ["mmlu-pro-29models", "83", "test"],
  ["mmlu-pro-29models", "88", "test"],
  ["routerbench-subset-11models", "arc-challenge.test.1", "train"],
  ["routerbench-subset-11models", "arc-challenge.test.1000", "train"],
  ["routerbench-subset-11models", "arc-challenge.test.1004", "train"],
  ["routerbench-subset-11models", "arc-challenge.test.1009", "train"],
  ["routerbench-subset-11models", "arc-challenge.test.1020", "val"],
  ["routerbench-subset-11models", "arc-challenge.test.1030", "val"],
  ["routerbench-subset-11models", "arc-challenge.test.1104", "val"],
  ["routerbench-subset-11models", "arc-challenge.test.1168", "val"],
  ["routerbench-subset-11models", "arc-challenge.test.1007", "test"],
  ["routerbench-subset-11models", "arc-challenge.test.1126", "test"],
  ["routerbench-subset-11models", "arc-challenge.test.1133", "test"],
  ["routerbench-subset-11models", "arc-challenge.test.1139", "test"],
  ["routerdc-7models", "0", "train"],
  ["routerdc-7models", "1", "train"],
  ["routerdc-7models", "2", "train"],
  ["routerdc-7models", "3", "train"],
  ["routerdc-7models", "13", "val"],
  ["routerdc-7models", "15", "val"],
  ["routerdc-7models", "18", "val"],
  ["routerdc-7models", "26", "val"],
  ["routerdc-7models", "11", "test"],
  ["routerdc-7models", "17", "test"],
  ["routerdc-7models", "21", "test"],
  ["routerdc-7models", "50", "test"],
  ["routellm-2models", "0", "train"],
  ["routellm-2models", "1", "train"],
  ["routellm-2models", "2", "train"],
  ["routellm-2models", "3", "train"],
  ["routellm-2models", "6", "val"],
  ["routellm-2models", "13", "val"],
  ["routellm-2models", "26", "val"],
  ["routellm-2models", "34", "val"],
  ["routellm-2models", "25", "test"],
  ["routellm-2models", "29", "test"],
  ["routellm-2models", "42", "test"],
  ["routellm-2models", "67", "test"],
];

describe("splitOf (BENCHMARK.md split rule)", () => {
  it.each(CHECK)("%s/%s is %s", (dataset, id, split) => {
    expect(splitOf(dataset, id)).toBe(split);
  });

  it("depends on the dataset name, not only the id", () => {
    const ids = Array.from({ length: 200 }, (_, i) => String(i));
    const a = ids.map((id) => splitOf("a", id));
    const b = ids.map((id) => splitOf("b", id));
    expect(a).not.toEqual(b);
  });
});
