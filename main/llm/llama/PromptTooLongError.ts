/** A chat prompt that does not fit the context, so no token could be generated. */
export class PromptTooLongError extends Error {
  override name = "PromptTooLongError";
  constructor(
    readonly promptTokens: number,
    readonly contextSize: number,
  ) {
    super(`the prompt has ${promptTokens} tokens, but a sequence holds ${contextSize}: shorten the messages or raise contextSize`);
  }
}
