/** A free-text field over its bound (a name, a label): refused before it is copied into the workspace. */
export class TextTooLongError extends Error {
  override readonly name = "TextTooLongError";
  constructor(
    readonly field: string,
    readonly length: number,
    readonly maxLength: number,
  ) {
    super(`${field}: at most ${maxLength} characters, got ${length}`);
  }
}

/** Names (runs, environment sets, adapters) are labels, not documents. */
export const maxNameLength = 200;

/** Refuses `value` when it is longer than `maxLength`. */
export function checkTextLength(field: string, value: string, maxLength = maxNameLength): string {
  if (value.length > maxLength) throw new TextTooLongError(field, value.length, maxLength);
  return value;
}
