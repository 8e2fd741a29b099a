import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { command } from "../../adapters/cli/commands/report.js";
import { parseCliArgs } from "../../adapters/cli/args.js";
import { checkOutDir, outDirError } from "../../adapters/out-dir.js";
import { ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { rejectedWith } from "../errors.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-report-out-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = (argv: string[]) => {
  const parsed = parseCliArgs(command, argv);
  return command.run(parseWith(command.schema, parsed.values, "options"), parsed.positionals);
};

describe("irt-router report --out: file errors are typed, naming the flag and the fix", () => {
  it("an existing file is refused (it used to be a raw EEXIST)", async () => {
    const file = join(tmp, "report.html");
    writeFileSync(file, "already here");
    const err = await rejectedWith(ValidationError, run(["--out", file]));
    expect(err.path).toBe("options.out");
    expect(err.message).toMatch(/--out .*report\.html is an existing file, not a folder.*remove the file/);
  }, 30_000);

  it("a path under /proc is refused at once (it used to hang in mkdir)", async () => {
    const err = await rejectedWith(ValidationError, run(["--out", "/proc/irt-router-report"]));
    expect(err.path).toBe("options.out");
    expect(err.message).toMatch(/--out \/proc\/irt-router-report is on a special filesystem.*give a folder/);
  }, 30_000);

  it.runIf(existsSync("/dev/shm"))("a folder on a writable tmpfs under /dev (/dev/shm) is accepted", async () => {
    await expect(checkOutDir("/dev/shm/irt-router-out-check/sub", { flag: "cache-dir" })).resolves.toBeUndefined();
    await expect(checkOutDir("/sys/irt-router-out-check", { flag: "cache-dir" })).rejects.toThrow(/special filesystem/);
  });

  it("a folder below a file, and a failed write, are typed too", async () => {
    const file = join(tmp, "plain");
    writeFileSync(file, "x");
    const err = await rejectedWith(ValidationError, checkOutDir(join(file, "sub")));
    expect(err.message).toMatch(/cannot be created: .*plain is a file, not a folder/);
    await expect(checkOutDir(join(tmp, "new", "nested"))).resolves.toBeUndefined(); // created later, nothing now
    const wrapped = outDirError(Object.assign(new Error("no space left"), { code: "ENOSPC" }), "out-dir");
    expect(wrapped).toBeInstanceOf(ValidationError);
    expect((wrapped as ValidationError).path).toBe("options.out");
    expect((wrapped as ValidationError).message).toMatch(/ENOSPC/);
  });
});
