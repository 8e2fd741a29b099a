/**
 * A folder a command writes into (`report --out`, `train --out`, `embed --cache-dir`, `calibrate --store`, ...),
 * checked before any slow step and without creating anything: an existing file in its place, a path on a special
 * filesystem (/proc, /sys: Node's recursive mkdir can spin forever under /proc; tmpfs such as /dev/shm is fine) or a
 * parent that cannot be
 * written are typed errors naming the flag and saying how to fix it; a write that fails later is one too
 * ({@link outDirError}). The one home of that rule: the CLI checks every output flag with it (`CliCommand.outputs`).
 */
import { constants } from "node:fs";
import { access, realpath, stat, statfs } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { ValidationError } from "../src/errors.js";

/** Roots of the pseudo filesystems nothing can be written to (not /dev: /dev/shm is a writable tmpfs). */
const SPECIAL_ROOTS = ["/proc", "/sys"];
/** statfs magic numbers of procfs and sysfs, with what a message calls them. */
const SPECIAL_FS = new Map([
  [0x9fa0, "procfs (/proc)"],
  [0x62656572, "sysfs (/sys)"],
]);

/** The pseudo filesystem an existing path is on (procfs, sysfs), by its statfs type; undefined for any other. */
async function pseudoFilesystemOf(existing: string): Promise<string | undefined> {
  return statfs(existing).then(
    (s) => SPECIAL_FS.get(s.type),
    () => undefined,
  );
}

/** What a command writes into an output folder, for the messages. */
export interface OutDirUse {
  /** The flag naming the folder, without its dashes (`out`, `cache-dir`). Default `out`. */
  readonly flag?: string;
  /** What goes into the folder, e.g. `the report writes index.html and one SVG per figure`. */
  readonly writes?: string;
  /** A folder to suggest, e.g. `./irt-router-report`. */
  readonly example?: string;
}

/** The report's `--out`. */
export const REPORT_OUT: OutDirUse = {
  flag: "out",
  writes: "the report writes index.html and one SVG per figure",
  example: "./irt-router-report",
};

/**
 * Checks `dir` can become the folder `use` describes (default: the report's `--out`); throws a
 * {@link ValidationError} (path `options.<flag>`) naming the flag when it cannot.
 *
 * @example
 * ```ts
 * await checkOutDir("/proc/report"); // ValidationError: --out /proc/report is on a special filesystem ...
 * await checkOutDir("./scorer.json", { flag: "out", writes: "train writes manifest.json, weights.bin and catalog.json" });
 * ```
 */
export async function checkOutDir(dir: string, use: OutDirUse = REPORT_OUT): Promise<void> {
  const flag = use.flag ?? "out";
  const writes = use.writes ?? "it writes its files";
  const fix = `give a folder on a regular disk (it is created if missing), e.g. --${flag} ${use.example ?? "./out"}`;
  const out = resolve(dir);
  const fail = (why: string) =>
    new ValidationError(`--${flag} ${dir} ${why}`, { path: `options.${flag}`, details: { path: out } });
  const existing = await nearestExisting(out);
  const real = await realpath(existing.path).catch(() => existing.path);
  const special = SPECIAL_ROOTS.find((root) => [out, real].some((p) => p === root || p.startsWith(root + sep)));
  const pseudo = special === undefined ? await pseudoFilesystemOf(real) : undefined;
  if (special !== undefined || pseudo !== undefined) {
    throw fail(`is on a special filesystem (${special ?? "procfs/sysfs"}), where nothing can be written: ${fix}.`);
  }
  if (existing.path === out && !existing.isDirectory) {
    throw fail(
      `is an existing file, not a folder: ${writes} into a folder. ` +
        `Give a new or existing folder (e.g. --${flag} ${use.example ?? "./out"}), or remove the file.`,
    );
  }
  if (!existing.isDirectory) {
    throw fail(`cannot be created: ${existing.path} is a file, not a folder. ${capital(fix)}.`);
  }
  await access(existing.path, constants.W_OK).catch(() => {
    throw fail(`cannot be written: ${existing.path} is not writable by this user. ${capital(fix)}.`);
  });
}

/** A write into the folder that failed (EACCES, ENOSPC, EROFS, ...), as a ValidationError naming the flag. */
export function outDirError(error: unknown, dir: string, use: OutDirUse = REPORT_OUT): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string") return error;
  const flag = use.flag ?? "out";
  return new ValidationError(
    `--${flag} ${dir}: the files could not be written (${code}: ${(error as Error).message}). Give a folder on a ` +
      `regular disk, with room and write permission (e.g. --${flag} ${use.example ?? "./out"}).`,
    { path: `options.${flag}`, cause: error, details: { code } },
  );
}

/**
 * Refuses a folder to create on procfs or sysfs, before `mkdir` is asked (Node's recursive mkdir can spin forever at
 * 100% CPU under /proc): throws a {@link ValidationError} (path `dir`, `details.code` `ENOTSUP`), which a caller with
 * its own typed error for the folder wraps (a `StoreError`, a `CacheError`). Library paths the CLI has not checked
 * with {@link checkOutDir} go through this; other special paths (tmpfs under /dev/shm) are left to `mkdir` itself.
 */
export async function refusePseudoFilesystem(dir: string): Promise<void> {
  const pseudo = await pseudoFilesystemOf((await nearestExisting(resolve(dir))).path);
  if (pseudo === undefined) return;
  throw new ValidationError(
    `${dir} is on ${pseudo}, where no folder can be created or written: ` + `give a folder on a regular disk`,
    { path: "dir", details: { code: "ENOTSUP", dir } },
  );
}

/** The path itself when it exists, else its nearest existing ancestor. */
async function nearestExisting(path: string): Promise<{ path: string; isDirectory: boolean }> {
  for (let p = path; ; p = dirname(p)) {
    const s = await stat(p).catch(() => undefined);
    if (s) return { path: p, isDirectory: s.isDirectory() };
    if (dirname(p) === p) return { path: p, isDirectory: false };
  }
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
