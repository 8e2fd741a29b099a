/** Levenshtein distance between two strings (insertions, deletions and substitutions cost 1). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `name` (case-insensitive edit distance), if it is within `maxDistance` edits;
 * for "did you mean" hints.
 *
 * @example
 * closestMatch("datset", ["dataset", "seeds"]); // "dataset"
 */
export function closestMatch(name: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= maxDistance ? best : undefined;
}
