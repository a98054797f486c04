/** A server a run cannot train against, with what to change (the server flag to set, or the config key). */
export class ServerPreflightError extends Error {
  override name = "ServerPreflightError";
  constructor(
    readonly baseUrl: string,
    readonly problems: string[],
  ) {
    super(`${baseUrl} cannot serve a training run:\n${problems.map((problem) => `- ${problem}`).join("\n")}`);
  }
}
