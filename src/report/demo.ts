/** What the built-in demo's run gives the report: its routing decisions, its spend, and its learning feedback. */
import type { AgentDemoReport } from "../demo/agent-demo.js";
import type { CatalogEntry } from "../scorer/types.js";
import { learningFromEvents } from "./inputs.js";
import type { ReportData } from "./types.js";

/**
 * The report's data for a built-in demo run: the scorer's abilities, the routing share of the first part, the
 * router's and always-strongest's expected accuracy and cost per step, and the learning curves replayed from the
 * learning part's feedback events. No reliability diagram: the demo's outcomes are drawn from the scorer's own p.
 */
export function demoReportData(report: AgentDemoReport, catalog: readonly CatalogEntry[]): ReportData {
  const n = report.steps.length;
  return {
    scorerName: "the pretrained scorer",
    abilities: catalog,
    decisions: {
      source: "built-in demo, first part",
      rows: report.steps.map((s) => ({ model: s.decision.chosen, category: s.task.subtask })),
    },
    costs: {
      source: "built-in demo, expected over its steps",
      per: "query",
      singles: [
        {
          name: `always ${report.strongest}`,
          cost: report.strongestOnly.spendUsd / n,
          accuracy: report.strongestOnly.expectedCorrect / n,
        },
      ],
      policies: [
        {
          name: `irt-router (${report.policy})`,
          points: [
            { name: report.policy, cost: report.routed.spendUsd / n, accuracy: report.routed.expectedCorrect / n },
          ],
        },
      ],
    },
    learning: learningFromEvents({ events: report.learning.events }, catalog, "built-in demo, learning part"),
  };
}
