import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const script = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "reference-embed.mjs");

/** Token ids (and optionally vectors) from the reference @energetic-ai/embeddings, run in a child process. */
export function referenceEmbed(
  texts: readonly string[],
  vectors: boolean,
): Promise<{ tokens: number[][]; vectors: number[][] | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`reference child exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out));
      } catch (error) {
        reject(new Error(`reference child printed bad JSON (${(error as Error).message}): ${err.slice(-2000)}`));
      }
    });
    child.stdin.end(JSON.stringify({ texts, vectors }));
  });
}
