/** Refuses a document index outside the corpus with a message naming it. */
export function checkIndex(index: number, count: number, path: string): void {
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`corpus ${path}: document index ${index} is out of range; it has ${count} documents (0..${count - 1})`);
  }
}
