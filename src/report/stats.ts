/**
 * The numerical parts of the report's figures (pure): a clustered row order for the ability heatmap, a 2-D PCA
 * projection of the abilities, reliability bins and the cost-accuracy (Pareto) frontier.
 */

/** Euclidean distance between two vectors of the same length. */
function distance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(s);
}

/**
 * Row order from average-linkage agglomerative clustering: rows that are close end up next to each other (the
 * leaves of the dendrogram, left to right). Ties merge the pair with the lowest indices first, so the order is
 * deterministic. When two clusters join, either may be flipped so that the rows facing each other are the closest
 * pair of ends.
 */
export function clusterOrder(rows: readonly ArrayLike<number>[]): number[] {
  const n = rows.length;
  const d: number[][] = rows.map((a) => rows.map((b) => distance(a, b)));
  let clusters = rows.map((_, i) => ({ members: [i], order: [i] }));
  while (clusters.length > 1) {
    let best = { i: 0, j: 1, dist: Infinity };
    for (let i = 0; i < clusters.length; i++) {
      for (let j = i + 1; j < clusters.length; j++) {
        let s = 0;
        for (const a of clusters[i]!.members) for (const b of clusters[j]!.members) s += d[a]![b]!;
        const avg = s / (clusters[i]!.members.length * clusters[j]!.members.length);
        if (avg < best.dist) best = { i, j, dist: avg };
      }
    }
    const a = clusters[best.i]!;
    const b = clusters[best.j]!;
    // Of the ways to join the two leaf orders (each may be flipped), keep the one whose facing ends are closest.
    const options = [
      [a.order, b.order],
      [a.order, [...b.order].reverse()],
      [[...a.order].reverse(), b.order],
      [[...a.order].reverse(), [...b.order].reverse()],
    ] as const;
    let joined = [...a.order, ...b.order];
    let gap = Infinity;
    for (const [left, right] of options) {
      const g = d[left[left.length - 1]!]![right[0]!]!;
      if (g < gap) [gap, joined] = [g, [...left, ...right]];
    }
    const merged = { members: [...a.members, ...b.members], order: joined };
    clusters = clusters.filter((_, k) => k !== best.i && k !== best.j);
    clusters.splice(best.i, 0, merged);
  }
  return n === 0 ? [] : clusters[0]!.order;
}

/** Leading eigenvector of a symmetric matrix by power iteration (deterministic start). */
function leadingEigenvector(m: readonly number[][], iterations = 500): { vector: number[]; value: number } {
  const dim = m.length;
  let v = Array.from({ length: dim }, (_, i) => 1 / Math.sqrt(dim) + (i % 2 === 0 ? 1e-3 : -1e-3));
  let value = 0;
  for (let it = 0; it < iterations; it++) {
    const w = m.map((row) => row.reduce((s, x, j) => s + x * v[j]!, 0));
    const norm = Math.hypot(...w);
    if (norm === 0) return { vector: v, value: 0 };
    value = norm;
    v = w.map((x) => x / norm);
  }
  return { vector: v, value };
}

/** A 2-D principal-component projection of the rows and the share of the variance each axis explains. */
export interface Projection {
  readonly points: readonly (readonly [number, number])[];
  readonly explained: readonly [number, number];
}

/**
 * Projects the rows on their first two principal components (centred; power iteration with deflation). The sign of
 * each component is fixed so that its largest loading is positive, so the picture does not flip between runs.
 */
export function pca2(rows: readonly ArrayLike<number>[]): Projection {
  const n = rows.length;
  const dim = n > 0 ? rows[0]!.length : 0;
  const mean = Array.from({ length: dim }, (_, j) => rows.reduce((s, r) => s + r[j]!, 0) / Math.max(1, n));
  const x = rows.map((r) => Array.from({ length: dim }, (_, j) => r[j]! - mean[j]!));
  const cov = Array.from({ length: dim }, (_, a) =>
    Array.from({ length: dim }, (_, b) => x.reduce((s, r) => s + r[a]! * r[b]!, 0) / Math.max(1, n - 1)),
  );
  const total = cov.reduce((s, row, i) => s + row[i]!, 0);
  const first = leadingEigenvector(cov);
  const deflated = cov.map((row, a) => row.map((c, b) => c - first.value * first.vector[a]! * first.vector[b]!));
  const second = leadingEigenvector(deflated);
  const axes = [first.vector, second.vector].map((v) => {
    const big = v.reduce((k, x, i) => (Math.abs(x) > Math.abs(v[k]!) ? i : k), 0);
    return v[big]! < 0 ? v.map((t) => -t) : v;
  });
  const dot = (r: number[], v: number[]) => r.reduce((s, t, j) => s + t * v[j]!, 0);
  return {
    points: x.map((r) => [dot(r, axes[0]!), dot(r, axes[1]!)] as const),
    explained: [total > 0 ? first.value / total : 0, total > 0 ? second.value / total : 0],
  };
}

/** One bin of a reliability diagram. */
export interface ReliabilityBin {
  readonly lower: number;
  readonly upper: number;
  /** Mean predicted probability in the bin. */
  readonly predicted: number;
  /** Observed rate of correct answers in the bin. */
  readonly observed: number;
  readonly count: number;
}

/** Equal-width reliability bins over [0, 1] (p = 1 falls in the last bin); empty bins are left out. */
export function reliabilityBins(p: ArrayLike<number>, y: ArrayLike<number>, bins = 10): ReliabilityBin[] {
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  const count = new Float64Array(bins);
  for (let i = 0; i < p.length; i++) {
    const b = Math.min(bins - 1, Math.max(0, Math.floor(p[i]! * bins)));
    sumP[b]! += p[i]!;
    sumY[b]! += y[i]!;
    count[b]! += 1;
  }
  const out: ReliabilityBin[] = [];
  for (let b = 0; b < bins; b++) {
    if (count[b]! === 0) continue;
    out.push({
      lower: b / bins,
      upper: (b + 1) / bins,
      predicted: sumP[b]! / count[b]!,
      observed: sumY[b]! / count[b]!,
      count: count[b]!,
    });
  }
  return out;
}

/**
 * Names of the points on the cost-accuracy frontier (no other point is at most as costly and more accurate),
 * cheapest first.
 */
export function paretoFrontier(points: readonly { name: string; cost: number; accuracy: number }[]): string[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || b.accuracy - a.accuracy);
  const out: string[] = [];
  let best = -Infinity;
  for (const p of sorted) {
    if (p.accuracy > best) {
      out.push(p.name);
      best = p.accuracy;
    }
  }
  return out;
}
