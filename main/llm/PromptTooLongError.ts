/**
 * A prompt that does not fit the model's context. The loop records it as an invalid attempt or an
 * errored play with this message, and the run goes on.
 */
export class PromptTooLongError extends Error {
  constructor(
    readonly promptTokens: number,
    readonly contextSize: number,
  ) {
    super(`prompt too long (${promptTokens} > ${contextSize} tokens): raise backend.contextSize or shorten the prompt`);
    this.name = "PromptTooLongError";
  }
}
