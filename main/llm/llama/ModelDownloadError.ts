/** A model URI that could not be downloaded (offline, unknown file, refused by the server). */
export class ModelDownloadError extends Error {
  override name = "ModelDownloadError";
  constructor(
    readonly uri: string,
    readonly problem: string,
  ) {
    super(`cannot download model ${uri}: ${problem}`);
  }
}
