/** A trainer or conversion command template that cannot be rendered (an unknown placeholder). */
export class TrainerCommandError extends Error {
  override readonly name = "TrainerCommandError";
}
