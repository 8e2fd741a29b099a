/** Duplicate detection of (item, model) labels in a bit set the size of the label matrix. */
/**
 * The (item, model) pairs labelled so far: one bit a pair, items x a model capacity that doubles as models appear (the
 * size of the label matrix, not of the file).
 *
 * @example
 * ```ts
 * const seen = new PairSet(3);
 * seen.add(2, 5); // true
 * seen.add(2, 5); // false: labelled already
 * ```
 */
export class PairSet {
  private capacity = 64;
  private bits: Uint8Array;

  constructor(private readonly nItems: number) {
    this.bits = new Uint8Array(Math.ceil((nItems * this.capacity) / 8));
  }

  /** Adds the pair; false when it was there already. */
  add(item: number, model: number): boolean {
    if (model >= this.capacity) this.grow(model);
    const bit = item * this.capacity + model;
    const mask = 1 << (bit & 7);
    if (this.bits[bit >> 3]! & mask) return false;
    this.bits[bit >> 3]! |= mask;
    return true;
  }

  private grow(model: number): void {
    let capacity = this.capacity;
    while (capacity <= model) capacity *= 2;
    const bits = new Uint8Array(Math.ceil((this.nItems * capacity) / 8));
    for (let i = 0; i < this.nItems; i++)
      for (let m = 0; m < this.capacity; m++) {
        const old = i * this.capacity + m;
        if (this.bits[old >> 3]! & (1 << (old & 7))) {
          const now = i * capacity + m;
          bits[now >> 3]! |= 1 << (now & 7);
        }
      }
    [this.bits, this.capacity] = [bits, capacity];
  }
}
