import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbedCommand } from "../../adapters/cli/commands/embed.js";
import { commands } from "../../adapters/cli/commands/index.js";
import { main } from "../../adapters/cli/main.js";
import { CacheError, DatasetNotFoundError, ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { folderBecomesFile, TestEncoder } from "./test-encoder.js";
import { Sink } from "../cli/sink.js";

const tmp = mkdtempSync(join(tmpdir(), "irt-router-embed-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const folder = join(tmp, "my-evals");
mkdirSync(folder);
writeFileSync(
  join(folder, "items.csv"),
  "item_id,text\n" + Array.from({ length: 45 }, (_, i) => `q${i},"question ${i}, with a comma"`).join("\n") + "\n",
);
writeFileSync(join(folder, "labels.csv"), "item_id,model,correct\nq0,m,1\n");

/** Run the command as the CLI does (parseArgs + zod), with a test encoder injected. */
async function run(argv: string[], encoder = new TestEncoder(), loads = { count: 0 }, signal?: AbortSignal) {
  const stdout = new Sink();
  const stderr = new Sink();
  const command = createEmbedCommand({
    loadEncoder: async () => {
      loads.count++;
      return encoder;
    },
    predictEncoder: async () => ({ id: encoder.id, dim: encoder.dim }),
    stdout,
    stderr,
    ...(signal ? { signal } : {}),
  });
  const parsed = parseArgs({ args: argv, options: command.options, allowPositionals: false, strict: true });
  const code = await command.run(parseWith(command.schema, parsed.values, "options"), parsed.positionals);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("irt-router embed", () => {
  it("is registered in the CLI", async () => {
    expect(Object.keys(commands)).toContain("embed");
    expect((await commands.embed!()).name).toBe("embed");
  });

  it("embeds a your-own-data folder with progress, writes the cache, and a rerun is served from the cache", async () => {
    const cacheDir = join(tmp, "cache");
    const loads = { count: 0 };
    const encoder = new TestEncoder();
    const first = await run(["--dataset", folder, "--batch", "10", "--cache-dir", cacheDir], encoder, loads);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Embedded 45 texts of my-evals with test-encoder@1 \(dim 8\)/);
    expect(first.stdout).toContain(cacheDir);
    expect(first.stderr).toMatch(/embed my-evals 45\/45 100% [0-9.]+ texts\/s ETA/);
    expect(encoder.calls).toBe(5);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".emb"))).toHaveLength(1);

    const second = await run(["--dataset", folder, "--cache-dir", cacheDir], encoder, loads);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(
      /^Served from the cache in \d+ ms \(no encoder call; dataset loaded in \d+ ms\): 45 x 8 vectors of my-evals/,
    );
    expect(loads.count).toBe(1); // the encoder was not even loaded the second time
    expect(encoder.calls).toBe(5);
  });

  it("an interruption checkpoints (exit 130) and the rerun resumes from it", async () => {
    const cacheDir = join(tmp, "cache-resume");
    const controller = new AbortController();
    // An encoder that "receives Ctrl-C" during its second batch.
    const interrupted = new TestEncoder(undefined, undefined, {
      beforeCall: (call) => call === 1 && controller.abort(new Error("SIGINT")),
    });
    const stopped = await run(
      ["--dataset", folder, "--batch", "10", "--cache-dir", cacheDir],
      interrupted,
      { count: 0 },
      controller.signal,
    );
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(
      /Interrupted\. Progress was checkpointed \(20\/45 texts\); rerun the same command to resume\./,
    );
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".partial"))).toHaveLength(1);

    const encoder = new TestEncoder();
    const rerun = await run(["--dataset", folder, "--batch", "10", "--cache-dir", cacheDir], encoder);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/Resuming: 20\/45 texts were checkpointed/);
    expect(rerun.stdout).toMatch(
      /^Embedded 25 texts of my-evals with test-encoder@1 \(dim 8\) after resuming 20 from a checkpoint/,
    );
    expect(encoder.texts).toBe(25);
  });

  it("an interruption whose checkpoint cannot be written says so, and does not claim the progress was kept", async () => {
    const cacheDir = join(tmp, "cache-lost");
    const controller = new AbortController();
    // The cache folder becomes a file during the first batch, and Ctrl-C comes then: the checkpoint on abort fails.
    const interrupted = new TestEncoder(undefined, undefined, {
      beforeCall: (call) => {
        if (call !== 0) return;
        folderBecomesFile(cacheDir);
        controller.abort(new Error("SIGINT"));
      },
    });
    const stopped = await run(
      ["--dataset", folder, "--batch", "10", "--cache-dir", cacheDir],
      interrupted,
      { count: 0 },
      controller.signal,
    );
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).not.toMatch(/Progress was checkpointed/);
    expect(stopped.stderr).toContain(
      `Interrupted. The progress could not be checkpointed in ${cacheDir} (a part of the path is a file, not a folder); a rerun starts over.`,
    );
    rmSync(cacheDir, { force: true });
  });

  it("rejects bad flags and unknown datasets with typed errors", async () => {
    await expect(run(["--dataset", folder, "--batch", "0"])).rejects.toThrow(ValidationError);
    await expect(run(["--dataset", folder, "--batch", "ten"])).rejects.toThrow(/options.batch/);
    await expect(run(["--batch", "3"])).rejects.toThrow(/options.dataset/);
    await expect(run(["--dataset", join(tmp, "missing")])).rejects.toThrow(DatasetNotFoundError);
  });

  it("a --cache-dir that cannot be a folder is a CacheError naming --cache-dir, before the encoder is loaded", async () => {
    const file = join(tmp, "plain-file");
    writeFileSync(file, "");
    const loads = { count: 0 };
    await expect(
      run(["--dataset", folder, "--cache-dir", join(file, "cache")], new TestEncoder(), loads),
    ).rejects.toThrow(CacheError);
    await expect(
      run(["--dataset", folder, "--cache-dir", join(file, "cache")], new TestEncoder(), loads),
    ).rejects.toThrow(/--cache-dir/);
    expect(loads.count).toBe(0);
  });

  it("main() reports a missing dataset with its error code and exit status 1", async () => {
    const original = process.stderr.write.bind(process.stderr);
    let captured = "";
    process.stderr.write = ((s: string) => {
      captured += s;
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await main(["embed", "--dataset", "no-such-dataset", "--data-root", tmp])).toBe(1);
    } finally {
      process.stderr.write = original;
    }
    expect(captured).toMatch(/\[DATASET_NOT_FOUND\] Dataset "no-such-dataset" not found/);
    expect(captured).toContain(join(tmp, "no-such-dataset"));
  });
});
