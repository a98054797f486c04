/** A count with its noun in the right number: "1 turn", "3 turns", "0 turns". `plural` defaults to the noun + "s". */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
