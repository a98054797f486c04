/** A LoRA adapter the OpenAI-compatible server could not load at run time (or cannot load at all). */
export class OpenAiAdapterLoadError extends Error {
  override name = "OpenAiAdapterLoadError";
  constructor(
    readonly baseUrl: string,
    readonly problem: string,
  ) {
    super(`${baseUrl}: ${problem}`);
  }
}
