import type { CliCommand } from "../command.js";

/** Every subcommand, by name. Each lives in its own file beside this one. */
export const commands: Record<string, () => Promise<CliCommand<any>>> = {
  eval: async () => (await import("./eval.js")).command,
  embed: async () => (await import("./embed.js")).command,
  demo: async () => (await import("./demo.js")).command,
  train: async () => (await import("./train.js")).command,
  explain: async () => (await import("./explain.js")).command,
  calibrate: async () => (await import("./calibrate.js")).command,
  predict: async () => (await import("./predict.js")).command,
  report: async () => (await import("./report.js")).command,
  replay: async () => (await import("./replay.js")).command,
};
