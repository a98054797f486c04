/** Bad input from a file, the CLI or the UI: the message names where, which field, and what was expected. */
export class InputError extends Error {
  override readonly name = "InputError";
}
