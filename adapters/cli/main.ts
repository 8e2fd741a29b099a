import { parseArgs } from "node:util";
import { IrtRouterError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { commands } from "./commands/index.js";

function usage(): string {
  const names = Object.keys(commands).sort();
  return `Usage: irt-router <command> [options]\n\nCommands: ${names.join(", ")}\nRun "irt-router <command> --help" for a command's options.`;
}

/** Entry point of the `irt-router` CLI. Returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 1;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`irt-router: unknown command "${name}".\n${usage()}\n`);
    return 2;
  }
  const command = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.summary}\n\nUsage: ${command.usage}\n`);
    return 0;
  }
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: command.options, allowPositionals: command.allowPositionals ?? false, strict: true });
    } catch (error) {
      process.stderr.write(`irt-router ${name}: ${(error as Error).message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    const args = parseWith(command.schema, parsed.values, "options");
    return await command.run(args, parsed.positionals);
  } catch (error) {
    if (error instanceof IrtRouterError) {
      process.stderr.write(`irt-router ${name}: [${error.code}] ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
