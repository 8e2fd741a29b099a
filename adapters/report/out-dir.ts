/**
 * The report's output folder (`--out`), checked before any slow step and without creating anything: an existing file
 * in its place, a path on a special filesystem (/proc, /sys, /dev: Node's recursive mkdir can spin forever under
 * /proc) or a parent that cannot be written are typed errors naming the flag and saying how to fix it; a write that
 * fails later is one too ({@link outDirError}).
 */
import { constants } from "node:fs";
import { access, realpath, stat, statfs } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { ValidationError } from "../../src/errors.js";

/** Roots of the pseudo filesystems a report cannot be written to. */
const SPECIAL_ROOTS = ["/proc", "/sys", "/dev"];
/** statfs magic numbers of procfs and sysfs. */
const SPECIAL_FS = new Set([0x9fa0, 0x62656572]);

const FIX = "give a folder on a regular disk (it is created if missing), e.g. --out ./irt-router-report";

/**
 * Checks `dir` can become the report's folder; throws a {@link ValidationError} (path `options.<flag>`) naming the
 * flag when it cannot.
 *
 * @example
 * ```ts
 * await checkOutDir("/proc/report", "out"); // ValidationError: --out /proc/report is on a special filesystem ...
 * ```
 */
export async function checkOutDir(dir: string, flag = "out"): Promise<void> {
  const out = resolve(dir);
  const fail = (why: string) =>
    new ValidationError(`--${flag} ${dir} ${why}`, { path: `options.${flag}`, details: { path: out } });
  const existing = await nearestExisting(out);
  const real = await realpath(existing.path).catch(() => existing.path);
  const special = SPECIAL_ROOTS.find((root) => [out, real].some((p) => p === root || p.startsWith(root + sep)));
  const fsType = await statfs(real).then(
    (s) => s.type,
    () => undefined,
  );
  if (special !== undefined || (fsType !== undefined && SPECIAL_FS.has(fsType))) {
    throw fail(`is on a special filesystem (${special ?? "procfs/sysfs"}), where no report can be written: ${FIX}.`);
  }
  if (existing.path === out && !existing.isDirectory) {
    throw fail(
      `is an existing file, not a folder: the report writes index.html and one SVG per figure into a folder. ` +
        `Give a new or existing folder (e.g. --${flag} ${dir}-report), or remove the file.`,
    );
  }
  if (!existing.isDirectory) {
    throw fail(`cannot be created: ${existing.path} is a file, not a folder. ${capital(FIX)}.`);
  }
  await access(existing.path, constants.W_OK).catch(() => {
    throw fail(`cannot be written: ${existing.path} is not writable by this user. ${capital(FIX)}.`);
  });
}

/** A write into the report's folder that failed (EACCES, ENOSPC, EROFS, ...), as a ValidationError naming the flag. */
export function outDirError(error: unknown, dir: string, flag = "out"): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string") return error;
  return new ValidationError(
    `--${flag} ${dir}: the report could not be written (${code}: ${(error as Error).message}). ${capital(FIX)}, ` +
      `with room and write permission.`,
    { path: `options.${flag}`, cause: error, details: { code } },
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
