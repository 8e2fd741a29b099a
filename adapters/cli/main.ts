import { closestMatch } from "../../src/util/edit-distance.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { IrtRouterError, MissingDependencyError, ValidationError } from "../../src/errors.js";
import { isMissingPackage } from "../../src/util/missing-package.js";
import { checkOutDir } from "../out-dir.js";
import { parseCliArgs, parseFlagValues } from "./args.js";
import type { CliCommand } from "./command.js";
import { commands } from "./commands/index.js";
import { packageRoot } from "../package-root.js";

function usage(): string {
  const names = Object.keys(commands).sort();
  return `Usage: irt-router <command> [options]\n\nCommands: ${names.join(", ")}\nRun "irt-router <command> --help" for a command's options; "irt-router --version" prints the version.`;
}

/** The installed package's package.json. */
function packageJson(): { version: string; peerDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as ReturnType<typeof packageJson>;
}

/** The installed package's version (from its package.json). */
export function packageVersion(): string {
  return packageJson().version;
}

/** The peer package (package.json `peerDependencies`) an import error says is not installed, if it is one. */
function missingPeer(error: unknown): string | undefined {
  return Object.keys(packageJson().peerDependencies ?? {}).find((name) => isMissingPackage(error, name));
}

/** Entry point of the `irt-router` CLI. Returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    // "irt-router help <command>" is that command's help
    if (name === "help" && rest[0] && Object.hasOwn(commands, rest[0])) return main([rest[0], "--help"]);
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 1;
  }
  // an own key only: "constructor" or "__proto__" is no command (an inherited property crashed the CLI)
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    const near = closestMatch(name, Object.keys(commands));
    process.stderr.write(
      `irt-router: unknown command "${name}"${near ? `; did you mean "${near}"?` : "."}\n${usage()}\n`,
    );
    return 2;
  }
  let command;
  try {
    command = await load();
  } catch (error) {
    // a command whose code imports a peer that is not installed (e.g. the demo's simulated chat models need
    // @langchain/core): say which, instead of Node's ERR_MODULE_NOT_FOUND stack
    const peer = missingPeer(error);
    if (!peer) throw error;
    const missing = new MissingDependencyError(
      [peer],
      `irt-router ${name} needs the package ${peer}, which is not installed: npm install ${peer}`,
    );
    process.stderr.write(`irt-router ${name}: [${missing.code}] ${missing.message}\n`);
    return 1;
  }
  // --help counts only before a "--" (after it, "--help" is an argument, e.g. a text to explain)
  const dashes = rest.indexOf("--");
  const flags = dashes >= 0 ? rest.slice(0, dashes) : rest;
  if (flags.includes("--help") || flags.includes("-h")) {
    process.stdout.write(`${command.summary}\n\nUsage: ${command.usage}\n\nOptional packages: ${command.needs}\n`);
    return 0;
  }
  let parsed;
  let args;
  try {
    // Every flag error (an unknown or malformed flag, a bad value however it was spelt, flags the command cannot take
    // together: its schema's rules, flag-rules.ts; a folder flag that cannot be a folder; a required text missing) is
    // found here, before any work, and exits 2 with the usage; a failure of the command itself exits 1.
    parsed = parseCliArgs(command, rest);
    if (command.positionalsRequired && parsed.positionals.join(" ").trim() === "") {
      throw new ValidationError(command.positionalsRequired, { path: "text" });
    }
    args = parseFlagValues(command.schema, parsed.values);
    await checkOutputs(command, args as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    process.stderr.write(`irt-router ${name}: [${error.code}] ${error.message}\nUsage: ${command.usage}\n`);
    return 2;
  }
  try {
    return await command.run(args, parsed.positionals);
  } catch (error) {
    if (error instanceof IrtRouterError) {
      process.stderr.write(`irt-router ${name}: [${error.code}] ${flagWords(error.message, command)}\n`);
      if (error instanceof MissingDependencyError)
        process.stderr.write(`Optional packages of irt-router ${name}: ${command.needs}\n`);
      return 1;
    }
    throw error;
  }
}

/** Checks each output folder flag given (`CliCommand.outputs`): see adapters/out-dir.ts. */
async function checkOutputs(command: CliCommand, args: Record<string, unknown>): Promise<void> {
  for (const [flag, use] of Object.entries(command.outputs ?? {})) {
    const dir = args[flag];
    if (typeof dir === "string") await checkOutDir(dir, { ...use, flag });
  }
}

/**
 * A library error's message in the CLI's words: the library option a flag feeds (`options.labels`,
 * `options.dataRoot`) named as that flag (`--labels`, `--data-root`), so no message shows an internal path.
 */
export function flagWords(message: string, command: Pick<CliCommand, "options">): string {
  return message.replace(/\boptions\.([A-Za-z][A-Za-z0-9]*)\b/g, (whole, key: string) => {
    const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    return Object.hasOwn(command.options, flag) ? `--${flag}` : whole;
  });
}
