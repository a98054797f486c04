/**
 * A prompt that does not fit the model's context. The loop records it as an invalid attempt or an
 * errored play with this message, and the run goes on.
 */
export class PromptTooLongError extends Error {
  constructor(
    readonly promptTokens: number,
    readonly contextSize: number,
    /** The context the model was trained on, when the backend knows it (a GGUF's context_length). */
    readonly trainedContextSize: number | null = null,
  ) {
    super(`prompt too long (${promptTokens} > ${contextSize} tokens${trainedContextSize === null ? "" : `; the model was trained on ${trainedContextSize}`}): ${raiseAdvice(contextSize, trainedContextSize)}shorten the prompt`);
    this.name = "PromptTooLongError";
  }
}

/** Raising the context helps only below the context the model was trained on (past it replies degrade). */
function raiseAdvice(contextSize: number, trained: number | null): string {
  if (trained === null) return "raise backend.contextSize or ";
  return contextSize < trained ? `raise backend.contextSize (up to ${trained}) or ` : "";
}
