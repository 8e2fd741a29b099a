/**
 * A typed array that grows by doubling as values are pushed: a column of numbers read row by row (a labels file) in
 * 4 or 8 bytes a value instead of a JS array's boxed numbers, handed on without a copy as a view of what was pushed.
 */
type TypedArrayKind = Int32ArrayConstructor | Uint32ArrayConstructor | Float32ArrayConstructor;

export class GrowArray<K extends TypedArrayKind> {
  private data: InstanceType<K>;
  length = 0;

  /**
   * @example
   * ```ts
   * const ys = new GrowArray(Float32Array);
   * ys.push(1); ys.push(0.5);
   * ys.view(); // Float32Array [1, 0.5]
   * ```
   */
  constructor(
    private readonly kind: K,
    capacity = 1024,
  ) {
    this.data = new kind(capacity) as InstanceType<K>;
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new this.kind(this.data.length * 2) as InstanceType<K>;
      bigger.set(this.data as never);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  at(k: number): number {
    return this.data[k]!;
  }

  /** The values pushed so far (a view sharing the storage: later pushes may or may not show in it). */
  view(): InstanceType<K> {
    return this.data.subarray(0, this.length) as InstanceType<K>;
  }
}
