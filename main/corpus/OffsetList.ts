/** A growable list of non-negative numbers in a typed array: byte offsets of millions of documents in a few MB. */
export class OffsetList {
  private values = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  at(index: number): number {
    return this.values[index] as number;
  }

  /** The values as a typed array of exactly `length` entries. */
  toArray(): Float64Array {
    return this.values.slice(0, this.length);
  }
}
