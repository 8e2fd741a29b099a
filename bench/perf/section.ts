/** One section of docs/benchmarks.md, produced by a file in bench/perf/sections/. */
export interface BenchSection {
  /** Section heading. */
  title: string;
  /** Markdown body: usually a table, plus a sentence on targets and what was measured. */
  markdown: string;
}

/** p-th percentile (0-100) of a sample, linear interpolation. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Milliseconds taken by each of `n` calls of `fn` (after `warmup` untimed calls). */
export async function timeCalls(fn: () => unknown, n: number, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function mdTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
